import Testing
import TestSupport
@testable import Gateway

extension IntegrationTests {
    /// Request shapes that a front proxy and libevent could read two ways, or that carry
    /// bytes no header may hold: each gets 400 and the connection is closed, so nothing
    /// after it on the wire is ever taken as a request.
    @Suite struct RequestSafety {
        struct Case: Sendable, CustomTestStringConvertible {
            let name: String
            let request: String
            var testDescription: String { name }
            init(_ name: String, _ request: String) {
                self.name = name
                self.request = request
            }
        }

        static let cases: [Case] = [
            Case("duplicate Content-Length", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
            Case("signed Content-Length", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: +3\r\n\r\nabc"),
            Case("Transfer-Encoding with Content-Length", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n"),
            Case("Transfer-Encoding other than chunked", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"),
            Case("NUL in a header value", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n"),
            Case("NUL in a pipelined request's header", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: \u{0}\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
            Case("CR in a header value", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n"),
            Case("DEL in a header value", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u{7F}\r\n\r\n"),
            Case("empty header name", "GET /healthz HTTP/1.1\r\nHost: x\r\n: value\r\n\r\n"),
            Case("space before the colon", "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length : 0\r\n\r\n"),
            Case("missing Host", "GET /healthz HTTP/1.1\r\n\r\n"),
            Case("tab before chunked", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\tchunked\r\n\r\n5\r\nGET /\r\n0\r\n\r\n"),
            Case("folded Transfer-Encoding", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n"),
            Case("HEAD with a body length", "HEAD /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n0123456789abcdef"),
            Case("TRACE with chunked", "TRACE /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"),
            Case("Content-Length padded out of the scanner's view", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length:" + String(repeating: " ", count: 90) + "3\r\n\r\nabc"),
            Case("two Hosts", "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
        ]

        @Test(arguments: cases)
        func refusedWith400AndClosed(_ shape: Case) async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    try client.send(shape.request)
                    let response = try client.readResponse(method: String(shape.request.prefix { $0 != " " }))
                    #expect(response.status == 400)
                    #expect(client.isClosedByPeer(), "a second request was read after the refusal")
                }
            }
        }

        @Test func framingProblemsNameTheCauseInProblemJSON() async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nX-Request-ID: smug-1\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\n")
                    let response = try client.readResponse()
                    #expect(response.header("Content-Type") == "application/problem+json")
                    #expect(response.header("Connection") == "close")
                    #expect(response.text == """
                        {"type":"urn:open-market-gateway:problem:malformed-request","title":"Malformed request","status":400,\
                        "detail":"Content-Length appears more than once.","requestId":"smug-1"}
                        """)
                }
            }
        }

        /// Regression: a chunk size of `-5` once sent its loop into a spin that never ended;
        /// with one loop, every later connection hung. Now the connection is refused and the
        /// loop goes on serving. (The refusals are evhttp's own for now: 413 for a negative
        /// size, 400 for the others.)
        @Test(arguments: [("-5", 413), ("+5", 400), ("0x5", 400)])
        func signedChunkSizeLeavesTheLoopServing(_ size: String, _ status: Int) async throws {
            try await TestServer.with(router: TestRoutes.router(), threads: 1) { server in
                let port = server.port
                try await offPool {
                    let attacker = try RawHTTPClient(port: port, timeout: 3)
                    try attacker.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\nhello\r\n0\r\n\r\n")
                    #expect(try attacker.readResponse(method: "POST").status == status)
                    #expect(attacker.isClosedByPeer())
                    let next = try RawHTTPClient(port: port, timeout: 3).request("GET", "/healthz")
                    #expect(next.status == 200)
                }
            }
        }

        @Test func bodyOverTheLimitIs413() async throws {
            try await TestServer.with(router: TestRoutes.router(), configure: { $0.maxBodyBytes = 1000 }) { server in
                let port = server.port
                try await offPool {
                    let atLimit = try RawHTTPClient(port: port).request("POST", "/echo", body: [UInt8](repeating: 1, count: 1000))
                    #expect(atLimit.status == 200)
                    let over = try RawHTTPClient(port: port).request("POST", "/echo", body: [UInt8](repeating: 1, count: 5000))
                    #expect(over.status == 413)
                    let chunked = try RawHTTPClient(port: port)
                    try chunked.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n" + String(repeating: "a", count: 2048) + "\r\n0\r\n\r\n")
                    #expect(try chunked.readResponse().status == 413)
                }
            }
        }

        @Test func silentConnectionsAreClosedAfterTheIdleTimeout() async throws {
            try await TestServer.with(configure: { $0.idleTimeout = .milliseconds(300) }) { server in
                let port = server.port
                try await offPool {
                    let idle = try RawHTTPClient(port: port)
                    #expect(idle.isClosedByPeer())
                    let halfSent = try RawHTTPClient(port: port)
                    try halfSent.send("GET /healthz HTTP/1.1\r\nHost: x\r\n")
                    #expect(halfSent.isClosedByPeer())
                }
            }
        }

        @Test func oversizedHeadersAreRefused() async throws {
            try await TestServer.with(configure: { $0.maxHeaderBytes = 2048 }) { server in
                let port = server.port
                try await offPool {
                    let response = try RawHTTPClient(port: port).request("GET", "/healthz", headers: ["X-Big: " + String(repeating: "b", count: 4096)])
                    #expect(response.status == 400)
                }
            }
        }
    }
}
