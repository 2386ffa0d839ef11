import Foundation
@testable import Gateway
@testable import GatewayRuntime
import Glibc
import Logging
import TestSupport
import Testing
@testable import Transport

extension IntegrationTests {
    /// The gateway's own HTTP/1.1 connections (ServerLoop, ClientConnection,
    /// ConnectionListener) on real sockets: methods it does not know, `Expect`, chunked
    /// bodies, pipelining, HTTP/1.0 and `Connection`, back-pressure and the write deadline,
    /// the connection cap, graceful drain, running out of descriptors, clients that leave,
    /// and TLS.
    @Suite struct ServerConnection {
        /// The problem+json body of an `about:blank` problem.
        /// A problem body as sent for a request that carried ``TestTrace/header``.
        static func problem(_ status: Int, _ title: String, _ detail: String, requestID: String) -> String {
            #"{"type":"about:blank","title":"\#(title)","status":\#(status),"detail":"\#(detail)","requestId":"\#(requestID)","traceId":"\#(TestTrace.id)"}"#
        }

        /// Polls `condition` every 5 ms for up to 5 s.
        static func waitUntil(_ condition: () -> Bool) async throws {
            _ = try await poll(until: condition)
        }

        // MARK: - Methods

        /// A well-formed method the gateway does not know is no framing error: 405 where the
        /// path exists (with `Allow`), 501 where it does not, and the connection goes on.
        @Test func unknownMethodsGet405Or501AndTheConnectionStaysOpen() async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    // QUERY carries a body; it must be consumed for the next request to parse.
                    try client.send("QUERY /healthz HTTP/1.1\r\nHost: x\r\nX-Request-ID: q-405\r\n\(TestTrace.header)\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nwhere")
                    let notAllowed = try client.readResponse()
                    #expect(notAllowed.status == 405)
                    #expect(notAllowed.header("Allow") == "GET, HEAD, OPTIONS")
                    #expect(notAllowed.header("Content-Type") == "application/problem+json")
                    #expect(notAllowed.header("Connection") == nil)
                    #expect(notAllowed.text == Self.problem(
                        405, "Method Not Allowed", "QUERY is not allowed here; allowed: GET, HEAD, OPTIONS.", requestID: "q-405"))

                    let notImplemented = try client.request("QUERY", "/nowhere", headers: ["X-Request-ID: q-501", TestTrace.header])
                    #expect(notImplemented.status == 501)
                    #expect(notImplemented.header("Content-Type") == "application/problem+json")
                    #expect(notImplemented.header("Allow") == nil)
                    #expect(notImplemented.header("Connection") == nil)
                    #expect(notImplemented.text == Self.problem(
                        501, "Not Implemented", "The method QUERY is not implemented.", requestID: "q-501"))

                    let after = try client.request("GET", "/healthz")
                    #expect(after.status == 200)
                    #expect(after.text == #"{"status":"ok"}"#)
                }
            }
        }

        // MARK: - Expect

        /// The head alone earns exactly one `100 Continue`; the body then gets its answer.
        @Test func expectContinueGetsAnInterimResponseBeforeTheBodyIsSent() async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let body = "hello there"
                    try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
                    let interim = try client.readBytes(25)
                    #expect(String(decoding: interim, as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
                    try client.send(body)
                    let answer = try client.readResponse(method: "POST")
                    #expect(answer.status == 200)
                    #expect(answer.text == body)
                    #expect(answer.header("Connection") == nil)
                    // The interim response was the only extra: the connection reads on in step.
                    #expect(try client.request("GET", "/healthz").status == 200)
                }
            }
        }

        /// A declared length over the limit is refused at the head: 413, no `100 Continue`,
        /// and the body is never asked for.
        @Test func expectContinueOverTheBodyLimitGets413AndNoContinue() async throws {
            try await TestServer.with(router: TestRoutes.router(), configure: { $0.maxBodyBytes = 1000 }) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nX-Request-ID: big-1\r\n\(TestTrace.header)\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n")
                    let refused = try client.readResponse(method: "POST")
                    #expect(refused.status == 413)
                    #expect(refused.header("Content-Type") == "application/problem+json")
                    #expect(refused.header("Connection") == "close")
                    #expect(refused.text == Self.problem(413, "Content Too Large", "The request body is too large.", requestID: "big-1"))
                    #expect(client.isClosedByPeer())
                }
            }
        }

        @Test func anUnsupportedExpectationGets417AndTheConnectionCloses() async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    try client.send("POST /echo HTTP/1.1\r\nHost: x\r\nX-Request-ID: exp-1\r\n\(TestTrace.header)\r\nExpect: something-else\r\nContent-Length: 5\r\n\r\n")
                    let refused = try client.readResponse(method: "POST")
                    #expect(refused.status == 417)
                    #expect(refused.header("Content-Type") == "application/problem+json")
                    #expect(refused.header("Connection") == "close")
                    #expect(refused.text == Self.problem(
                        417, "Expectation Failed", "Only Expect: 100-continue is supported.", requestID: "exp-1"))
                    #expect(client.isClosedByPeer())
                }
            }
        }

        /// A client that sends a head with `Expect: 100-continue` and resets at once: the
        /// `100 Continue` cannot be written, the connection closes, and the server goes on (it
        /// once armed the freed timer after that failed write). The loop is held first, so the
        /// reset has arrived before the head is read.
        @Test func aResetRightAfterAnExpectHeadClosesOnlyThatConnection() async throws {
            try await TestServer.with(router: TestRoutes.router(), threads: 1) { server in
                let port = server.port
                try await offPool {
                    let holder = try RawHTTPClient(port: port)
                    try holder.send("GET /block?ms=300 HTTP/1.1\r\nHost: x\r\n\r\n")
                    Thread.sleep(forTimeInterval: 0.05)
                    for _ in 0..<5 {
                        let leaving = try RawHTTPClient(port: port)
                        try leaving.send("POST /echo HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
                        leaving.close(reset: true)
                    }
                    #expect(try holder.readResponse().status == 200)
                    let after = try RawHTTPClient(port: port).request("GET", "/healthz")
                    #expect(after.status == 200)
                }
            }
        }

        // MARK: - Chunked bodies

        /// Three chunks (two with extensions, one holding CRLFs of its own) and two trailer
        /// fields, sent whole or in pieces cut inside every part of the framing.
        @Test(arguments: [false, true])
        func chunkedBodyWithExtensionsAndTrailersIsEchoedExactly(split: Bool) async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    let pieces = [
                        "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-",
                        "Encoding: chunked\r\n\r\n4;na",
                        "me=value\r",
                        "\nWi",
                        "ki\r\n5\r\npedia\r",
                        "\nE;quoted=\"a;",
                        "b\"\r\n in\r\n\r\nchunks.\r\n0\r\nX-Trai",
                        "ler: done\r\nX-Other: 1\r\n",
                        "\r\n",
                    ]
                    let client = try RawHTTPClient(port: port)
                    if split {
                        for piece in pieces {
                            try client.send(piece)
                            Thread.sleep(forTimeInterval: 0.03)
                        }
                    } else {
                        try client.send(pieces.joined())
                    }
                    let echoed = try client.readResponse(method: "POST")
                    #expect(echoed.status == 200)
                    #expect(echoed.text == "Wikipedia in\r\n\r\nchunks.")
                    #expect(echoed.header("Content-Length") == "23")
                    // The trailers' end was the message's end.
                    let next = try client.request("GET", "/healthz")
                    #expect(next.status == 200)
                    #expect(next.text == #"{"status":"ok"}"#)
                }
            }
        }

        // MARK: - Pipelining

        /// Ten requests of every kind of handler, in one write: ten complete answers, in order.
        @Test func tenMixedPipelinedRequestsInOneWriteAreAnsweredInOrder() async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    var generator = SeededGenerator(seed: 7)
                    let binary = generator.bytes(3000)
                    func head(_ line: String, _ id: Int, _ extra: String = "") -> String {
                        "\(line) HTTP/1.1\r\nHost: x\r\nX-Request-ID: p-\(id)\r\n\(extra)\r\n"
                    }
                    var stream: [UInt8] = []
                    stream += Array(head("GET /healthz", 1).utf8)
                    stream += Array((head("POST /echo", 2, "Content-Length: 5\r\n") + "alpha").utf8)
                    stream += Array(head("GET /async", 3).utf8)
                    stream += Array((head("POST /echo", 4, "Transfer-Encoding: chunked\r\n") + "3\r\nbet\r\n1\r\na\r\n0\r\n\r\n").utf8)
                    stream += Array(head("GET /deferred", 5).utf8)
                    stream += Array(head("HEAD /healthz", 6).utf8)
                    stream += Array(head("POST /echo", 7, "Content-Length: 3000\r\nContent-Type: application/octet-stream\r\n").utf8) + binary
                    stream += Array(head("GET /big?size=70000", 8).utf8)
                    stream += Array(head("GET /slow?ms=30", 9).utf8)
                    stream += Array(head("GET /healthz", 10).utf8)
                    let client = try RawHTTPClient(port: port)
                    try client.send(stream)

                    let methods = ["GET", "POST", "GET", "POST", "GET", "HEAD", "POST", "GET", "GET", "GET"]
                    var responses: [RawHTTPClient.Response] = []
                    for method in methods {
                        responses.append(try client.readResponse(method: method))
                    }
                    #expect(responses.map(\.status) == Array(repeating: 200, count: 10))
                    #expect(responses.map { $0.header("X-Request-ID") ?? "" } == (1...10).map { "p-\($0)" })
                    #expect(responses[0].text == #"{"status":"ok"}"#)
                    #expect(responses[1].text == "alpha")
                    #expect(responses[2].text == #"{"async":true}"#)
                    #expect(responses[3].text == "beta")
                    #expect(responses[4].text == #"{"deferred":true}"#)
                    #expect(responses[5].body.isEmpty)
                    #expect(responses[5].header("Content-Length") == "15")
                    #expect(responses[6].body == binary)
                    #expect(responses[7].body == TestRoutes.jsonBody(size: 70000))
                    #expect(responses[8].text == #"{"slow":30}"#)
                    #expect(responses[9].text == #"{"status":"ok"}"#)
                    #expect(responses.allSatisfy { $0.header("Connection") == nil })
                    // Nothing more was sent than ten answers, and the connection is still good.
                    #expect(try client.request("GET", "/healthz").status == 200)
                }
            }
        }

        // MARK: - HEAD, HTTP/1.0 and Connection

        @Test func headHasTheLengthOfTheGetBodyAndNoBody() async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let get = try client.request("GET", "/big?size=12345")
                    #expect(get.status == 200)
                    #expect(get.body.count == 12345)
                    let head = try client.request("HEAD", "/big?size=12345")
                    #expect(head.status == 200)
                    #expect(head.header("Content-Length") == "12345")
                    #expect(head.header("Content-Type") == get.header("Content-Type"))
                    #expect(head.body.isEmpty)
                    // A body after the HEAD answer would be read as this answer's status line.
                    let next = try client.request("GET", "/healthz")
                    #expect(next.status == 200)
                    #expect(next.text == #"{"status":"ok"}"#)
                }
            }
        }

        @Test func http10WithoutKeepAliveIsAnsweredAndClosed() async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    try client.send("GET /healthz HTTP/1.0\r\n\r\n")
                    let response = try client.readResponse()
                    #expect(response.status == 200)
                    #expect(response.text == #"{"status":"ok"}"#)
                    #expect(response.header("Connection") == "close")
                    #expect(client.isClosedByPeer())
                }
            }
        }

        @Test func http10KeepAliveIsHonoredAndSaidSo() async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    try client.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                    let first = try client.readResponse()
                    #expect(first.status == 200)
                    #expect(first.text == #"{"status":"ok"}"#)
                    #expect(first.header("Connection") == "keep-alive")
                    try client.send("POST /echo HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 6\r\n\r\nsecond")
                    let second = try client.readResponse(method: "POST")
                    #expect(second.status == 200)
                    #expect(second.text == "second")
                    #expect(second.header("Connection") == "keep-alive")
                    // Without the token the HTTP/1.0 default holds again: close.
                    try client.send("GET /healthz HTTP/1.0\r\n\r\n")
                    let third = try client.readResponse()
                    #expect(third.status == 200)
                    #expect(third.header("Connection") == "close")
                    #expect(client.isClosedByPeer())
                }
            }
        }

        @Test func http11ConnectionCloseIsHonoredAndSaidSo() async throws {
            try await TestServer.with(router: TestRoutes.router()) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let first = try client.request("GET", "/healthz")
                    #expect(first.header("Connection") == nil)
                    let last = try client.request("GET", "/healthz", headers: ["Connection: close"])
                    #expect(last.status == 200)
                    #expect(last.text == #"{"status":"ok"}"#)
                    #expect(last.header("Connection") == "close")
                    #expect(client.isClosedByPeer())
                }
            }
        }
    }
}

/// This process's memory, from `/proc/self/status`.
enum ProcessMemory {
    /// A `kB` field of `/proc/self/status` (`VmRSS`, `VmHWM`) in bytes.
    static func bytes(_ field: String) -> Int? {
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/status") else { return nil }
        defer { try? handle.close() }
        let text = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let value = line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first
            return value.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }

    /// Resets `VmHWM` (the peak) to the current resident size; false when the kernel refuses.
    static func resetPeak() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }
}
