import Foundation
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
            let status: Int
            var testDescription: String { name }
            init(_ name: String, _ request: String, _ status: Int = 400) {
                self.name = name
                self.request = request
                self.status = status
            }
        }

        static let cases: [Case] = [
            Case("duplicate Content-Length", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
            Case("signed Content-Length", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: +3\r\n\r\nabc"),
            Case("Transfer-Encoding with Content-Length", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n"),
            Case("Transfer-Encoding other than chunked", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501),
            Case("Transfer-Encoding not ending in chunked", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n"),
            Case("NUL in a header value", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n"),
            Case("NUL in a pipelined request's header", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: \u{0}\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
            Case("CR in a header value", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n"),
            Case("DEL in a header value", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u{7F}\r\n\r\n"),
            Case("empty header name", "GET /healthz HTTP/1.1\r\nHost: x\r\n: value\r\n\r\n"),
            Case("space before the colon", "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length : 0\r\n\r\n"),
            Case("missing Host", "GET /healthz HTTP/1.1\r\n\r\n"),
            Case("bare LF", "GET /healthz HTTP/1.1\nHost: x\n\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
            Case("bare CR", "GET /healthz HTTP/1.1\r\nHost: x\rX: y\r\n\r\n"),
            Case("obs-fold", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n"),
            Case("whitespace after the request line", "GET /healthz HTTP/1.1\r\n Host: x\r\n\r\n"),
            Case("header name not a token", "GET /healthz HTTP/1.1\r\nHost: x\r\nX(A): a\r\n\r\n"),
            Case("list-valued Content-Length", "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 3, 3\r\n\r\nabc"),
            Case("chunk size +5", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n+5\r\nhello\r\n0\r\n\r\n"),
            Case("chunk size of 17 digits", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n00000000000000005\r\nhello\r\n0\r\n\r\n"),
            Case("no CRLF after chunk data", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
            Case("space in the target", "GET /healthz x HTTP/1.1\r\nHost: x\r\n\r\n"),
            Case("control byte in the target", "GET /health\u{1}z HTTP/1.1\r\nHost: x\r\n\r\n"),
            Case("HTTP/2.0", "GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n", 505),
            Case("folded Transfer-Encoding", "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n"),
            Case("HEAD with a body length", "HEAD /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n0123456789abcdef"),
            // No route serves TRACE: with a body it gets what it gets without one (405 with
            // Allow), and the body is never read.
            Case("TRACE with chunked", "TRACE /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 405),
            Case("TRACE with a length", "TRACE /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhiGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n", 405),
            Case("HEAD with a length", "HEAD /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi"),
            Case("two Hosts", "GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
        ]

        @Test(arguments: cases)
        func refusedAndClosed(_ shape: Case) async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    try client.send(shape.request)
                    let response = try client.readResponse(method: String(shape.request.prefix { $0 != " " }))
                    #expect(response.status == shape.status)
                    #expect(response.header("Content-Type") == "application/problem+json")
                    #expect(response.header("Connection") == "close")
                    #expect(client.isClosedByPeer(), "a second request was read after the refusal")
                }
            }
        }

        @Test func framingProblemsNameTheCauseInProblemJSON() async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nX-Request-ID: smug-1\r\n\(TestTrace.header)\r\nContent-Length: 0\r\nContent-Length: 5\r\n\r\n")
                    let response = try client.readResponse()
                    #expect(response.header("Content-Type") == "application/problem+json")
                    #expect(response.header("Connection") == "close")
                    #expect(response.text == """
                        {"type":"urn:open-market-gateway:problem:malformed-request","title":"Malformed request","status":400,\
                        "detail":"Content-Length appears more than once.","requestId":"smug-1","traceId":"\(TestTrace.id)"}
                        """)
                }
            }
        }

        /// Regression: a chunk size of `-5` once sent its loop into a spin that never ended;
        /// with one loop, every later connection hung. Now the connection is refused and the
        /// loop goes on serving.
        @Test(arguments: ["-5", "+5", "0x5"])
        func signedChunkSizeLeavesTheLoopServing(_ size: String) async throws {
            try await TestServer.with(router: TestRoutes.router(), threads: 1) { server in
                let port = server.port
                try await offPool {
                    let attacker = try RawHTTPClient(port: port, timeout: 3)
                    try attacker.send("POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\nhello\r\n0\r\n\r\n")
                    let refusal = try attacker.readResponse(method: "POST")
                    #expect(refusal.status == 400)
                    #expect(refusal.header("Content-Type") == "application/problem+json")
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
                    let kept = try RawHTTPClient(port: port)
                    #expect(try kept.request("GET", "/healthz").status == 200)
                    #expect(kept.isClosedByPeer())
                }
            }
        }

        /// A head sent a byte at a time gets 408 when the head deadline (counted from its
        /// first byte, never pushed back by progress) passes.
        @Test func aTricklingHeadGets408AtTheHeaderDeadline() async throws {
            try await TestServer.with(configure: { $0.headerTimeout = .milliseconds(600) }) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port, timeout: 5)
                    let started = ContinuousClock.now
                    var refused = false
                    for byte in Array("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: abcdefghijklmnopqrstuvwxyz\r\n".utf8) {
                        guard (try? client.send([byte])) != nil else {
                            refused = true
                            break
                        }
                        Thread.sleep(forTimeInterval: 0.05)
                        if ContinuousClock.now - started > .seconds(1) { break }
                    }
                    _ = refused
                    let response = try client.readResponse()
                    #expect(response.status == 408)
                    #expect(response.header("Content-Type") == "application/problem+json")
                    #expect(client.isClosedByPeer())
                }
            }
        }

        @Test func aStalledBodyGets408() async throws {
            try await TestServer.with(router: TestRoutes.router(), configure: { $0.bodyTimeout = .milliseconds(300) }) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nabc")
                    let response = try client.readResponse(method: "POST")
                    #expect(response.status == 408)
                    #expect(client.isClosedByPeer())
                }
            }
        }

        @Test func oversizedHeadersGet431AndLongTargets414() async throws {
            try await TestServer.with(configure: {
                $0.maxHeaderBytes = 2048
                $0.maxTargetBytes = 1024
            }) { server in
                let port = server.port
                try await offPool {
                    let big = try RawHTTPClient(port: port).request("GET", "/healthz", headers: ["X-Big: " + String(repeating: "b", count: 4096)])
                    #expect(big.status == 431)
                    #expect(big.header("Content-Type") == "application/problem+json")
                    let long = try RawHTTPClient(port: port).request("GET", "/healthz?" + String(repeating: "q", count: 1500))
                    #expect(long.status == 414)
                }
            }
        }
    }
}
