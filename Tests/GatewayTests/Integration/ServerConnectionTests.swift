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

        // MARK: - Back-pressure and the write deadline

        /// A client that pipelines a thousand 200 kB requests and reads nothing: the server
        /// stops reading once 64 KiB of answers wait, the write deadline disconnects the
        /// client, memory never holds the 200 MB of answers, and the loop serves on.
        @Test func aClientThatNeverReadsIsDisconnectedAndMemoryStaysBounded() async throws {
            try await TestServer.with(router: TestRoutes.router(), threads: 1, configure: {
                $0.maxOutputBytes = 64 * 1024
                $0.writeTimeout = .milliseconds(500)
            }) { server in
                let port = server.port
                let count = 1000
                let size = 200_000
                let residentBefore = try #require(ProcessMemory.bytes("VmRSS"))
                let peakTracked = ProcessMemory.resetPeak()
                let received = try await offPool { () -> Int in
                    let client = try RawHTTPClient(port: port, timeout: 10, receiveBufferBytes: 4096)
                    let requests = String(repeating: "GET /big?size=\(size) HTTP/1.1\r\nHost: x\r\n\r\n", count: count)
                    // The send may fail once the server gives up: that is a disconnect too.
                    try? client.send(requests)
                    // Reads nothing for three write deadlines.
                    Thread.sleep(forTimeInterval: 1.5)
                    return try client.drainUntilClosed()
                }
                // The stream ended (drainUntilClosed returned) before the answers did.
                #expect(received < count * size, "received \(received) bytes")
                let after = try #require(ProcessMemory.bytes(peakTracked ? "VmHWM" : "VmRSS"))
                #expect(
                    after - residentBefore < 64 << 20,
                    "resident \(residentBefore >> 20) MiB before, \(peakTracked ? "peak" : "resident") \(after >> 20) MiB after")
                let fresh = try await offPool { try RawHTTPClient(port: port).request("GET", "/big?size=\(size)") }
                #expect(fresh.status == 200)
                #expect(fresh.body.count == size)
            }
        }

        /// Back-pressure lets go: twenty pipelined 100 kB answers against a 64 KiB bound all
        /// arrive, complete and in order, as the client reads them.
        @Test func pipelinedAnswersOverTheOutputBoundAllArriveAsTheClientReads() async throws {
            try await TestServer.with(router: TestRoutes.router(), threads: 1, configure: {
                $0.maxOutputBytes = 64 * 1024
            }) { server in
                let port = server.port
                try await offPool {
                    let client = try RawHTTPClient(port: port, receiveBufferBytes: 4096)
                    try client.send((0..<20).map { "GET /big?size=\(100_000 + $0) HTTP/1.1\r\nHost: x\r\nX-Request-ID: bp-\($0)\r\n\r\n" }.joined())
                    for index in 0..<20 {
                        let response = try client.readResponse()
                        #expect(response.status == 200)
                        #expect(response.header("X-Request-ID") == "bp-\(index)")
                        #expect(response.body == TestRoutes.jsonBody(size: 100_000 + index))
                    }
                    #expect(try client.request("GET", "/healthz").status == 200)
                }
            }
        }

        /// One request for a 3 MB answer, then the client reads nothing. The answer is under
        /// the output bound, so reading never pauses; the write deadline alone must end the
        /// connection (500 ms without progress), not the idle deadline (20 s).
        @Test func aClientThatStopsReadingOneLargeAnswerIsDisconnectedAtTheWriteDeadline() async throws {
            try await TestServer.with(router: TestRoutes.router(), threads: 1, configure: {
                $0.writeTimeout = .milliseconds(500)
                $0.idleTimeout = .seconds(20)
            }) { server in
                let port = server.port
                let size = 3_000_000
                let received = try await offPool { () -> Int in
                    let client = try RawHTTPClient(port: port, timeout: 5, receiveBufferBytes: 4096)
                    try client.send("GET /big?size=\(size) HTTP/1.1\r\nHost: x\r\n\r\n")
                    // Reads nothing for three write deadlines.
                    Thread.sleep(forTimeInterval: 1.5)
                    // Throws when the stream does not end within 5 s of reading.
                    return try client.drainUntilClosed()
                }
                #expect(received < size, "received \(received) bytes")
                let fresh = try await offPool { try RawHTTPClient(port: port).request("GET", "/healthz") }
                #expect(fresh.status == 200)
            }
        }

        // MARK: - Connection cap

        /// At the cap, a new connection closes an idle keep-alive one to get in, on its own
        /// loop or (with two loops) on the other.
        @Test(arguments: [1, 2])
        func anIdleConnectionMakesRoomAtTheConnectionCap(threads: Int) async throws {
            try await TestServer.with(router: TestRoutes.router(), threads: threads, configure: { $0.maxConnections = 4 }) { server in
                let port = server.port
                try await offPool {
                    let idle = try (0..<4).map { _ in try RawHTTPClient(port: port, timeout: 5) }
                    for client in idle {
                        #expect(try client.request("GET", "/healthz").status == 200)
                    }
                    let fifth = try RawHTTPClient(port: port, timeout: 5)
                    let served = try fifth.request("GET", "/healthz")
                    #expect(served.status == 200)
                    #expect(served.text == #"{"status":"ok"}"#)
                    // Exactly one of the first four was closed for it; the others still serve.
                    let outcomes = idle.map { client in (try? client.request("GET", "/healthz"))?.status }
                    #expect(outcomes.filter { $0 == 200 }.count == 3, "\(outcomes)")
                    #expect(outcomes.filter { $0 == nil }.count == 1, "\(outcomes)")
                    #expect(try fifth.request("GET", "/healthz").status == 200)
                }
            }
        }

        /// At the cap with every connection busy, a new one gets 503 problem+json and is
        /// closed; once the busy ones are answered (and so idle), new ones get in again.
        @Test func busyConnectionsAtTheCapMeanA503ForTheNextOne() async throws {
            try await TestServer.with(router: TestRoutes.router(), threads: 1, configure: { $0.maxConnections = 4 }) { server in
                let port = server.port
                let busy = try await offPool {
                    try (0..<4).map { index in
                        let client = try RawHTTPClient(port: port, timeout: 10)
                        try client.send("GET /slow?ms=1500 HTTP/1.1\r\nHost: x\r\nX-Request-ID: busy-\(index)\r\n\r\n")
                        return client
                    }
                }
                try await Self.waitUntil { server.server.inFlight == 4 }
                #expect(server.server.inFlight == 4)
                try await offPool {
                    let refused = try RawHTTPClient(port: port, timeout: 5)
                    // The refusal may be written before this request arrives.
                    try? refused.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                    let response = try refused.readResponse()
                    #expect(response.status == 503)
                    #expect(response.header("Content-Type") == "application/problem+json")
                    #expect(response.header("Connection") == "close")
                    #expect(response.header("Retry-After") == "1")
                    let problem = try response.json()
                    #expect(problem["type"] as? String == "about:blank")
                    #expect(problem["title"] as? String == "Service Unavailable")
                    #expect(problem["status"] as? Int == 503)
                    #expect(problem["detail"] as? String == "The gateway has too many open connections; retry shortly.")
                    #expect(refused.isClosedByPeer())

                    for (index, client) in busy.enumerated() {
                        let answer = try client.readResponse()
                        #expect(answer.status == 200)
                        #expect(answer.text == #"{"slow":1500}"#)
                        #expect(answer.header("X-Request-ID") == "busy-\(index)")
                    }
                    let later = try RawHTTPClient(port: port, timeout: 5).request("GET", "/healthz")
                    #expect(later.status == 200)
                    #expect(later.text == #"{"status":"ok"}"#)
                }
            }
        }

        // MARK: - Graceful drain

        /// `shutdown()`: an idle keep-alive connection is closed at once, a busy one gets its
        /// answer with `Connection: close` and then the end of the stream, and nothing new is
        /// accepted.
        @Test(arguments: [1, 2])
        func shutdownClosesIdleConnectionsAndLetsBusyOnesFinish(threads: Int) async throws {
            var configuration = GatewayConfiguration.loopback(threads: threads)
            configuration.shutdownGrace = .seconds(10)
            configuration.idleTimeout = .seconds(60)
            var logger = Logger(label: "test-gateway")
            logger.logLevel = .warning
            let server = GatewayServer(configuration: configuration, router: TestRoutes.router(), logger: logger)
            try server.start()
            defer { server.shutdown() }
            let port = server.port
            let idle = try await offPool { () -> RawHTTPClient in
                let idle = try RawHTTPClient(port: port, timeout: 5)
                #expect(try idle.request("GET", "/healthz").status == 200)
                return idle
            }
            // The idle connection's request is released just after its answer is written.
            try await Self.waitUntil { server.inFlight == 0 }
            let busy = try await offPool { () -> RawHTTPClient in
                let busy = try RawHTTPClient(port: port, timeout: 10)
                try busy.send("GET /slow?ms=800 HTTP/1.1\r\nHost: x\r\n\r\n")
                return busy
            }
            try await Self.waitUntil { server.inFlight == 1 }
            #expect(server.inFlight == 1)
            async let stopped: Void = offPool { server.shutdown() }

            // Closed by the drain, not by the idle deadline (60 s), while the busy request runs.
            let idleClosed = try await offPool { idle.isClosedByPeer() }
            #expect(idleClosed)
            #expect(server.inFlight == 1)

            let answer = try await offPool { try busy.readResponse() }
            #expect(answer.status == 200)
            #expect(answer.text == #"{"slow":800}"#)
            #expect(answer.header("Connection") == "close")
            #expect(try await offPool { busy.isClosedByPeer() })

            // No new connection is served while the server stops.
            let newcomer = try await offPool { () -> Int? in
                guard let client = try? RawHTTPClient(port: port, timeout: 3) else { return nil }
                try? client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                return (try? client.readResponse())?.status
            }
            #expect(newcomer == nil)
            try await stopped
        }

        // MARK: - Descriptor shortage

        /// The gateway short of descriptors: 80 connections at once exhaust them; it pauses
        /// accepting instead of spinning, logs the shortage at most once a second, and serves
        /// again once the connections are gone.
        ///
        /// The limit is lowered once the gateway runs, to what it holds then plus eight: a
        /// limit given at launch would also set the connection cap (the limit less 256, at
        /// least 16), and the cap, not the descriptors, would then turn connections away.
        @Test func runningOutOfDescriptorsPausesAcceptingAndLogsSparingly() async throws {
            let port = try Self.freePort()
            var environment = ProcessInfo.processInfo.environment
            environment["GATEWAY_CACHE_DIR"] = FileManager.default.temporaryDirectory
                .appendingPathComponent("gateway-cache-\(UUID().uuidString)").path
            let gateway = try BuiltExecutable(
                "gateway",
                arguments: [
                    "--host", "127.0.0.1", "--port", "\(port)", "--threads", "1", "--origin", "http://127.0.0.1:9",
                    "--log-level", "warning",
                ],
                environment: environment, launcher: ["/usr/bin/prlimit", "--nofile=1024:1024"])
            defer { if gateway.process.isRunning { gateway.process.terminate() } }

            let up = try await offPool { () -> Int? in
                for _ in 0..<200 {
                    if let status = (try? RawHTTPClient(port: port, timeout: 2).request("GET", "/healthz"))?.status {
                        return status
                    }
                    Thread.sleep(forTimeInterval: 0.05)
                }
                return nil
            }
            try #require(up == 200, "the gateway did not come up")
            let pid = gateway.process.processIdentifier
            let open = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count
            let limit = open + 8
            let lowered = try await offPool { try Self.run("/usr/bin/prlimit", ["--pid", "\(pid)", "--nofile=\(limit):1024"]) }
            try #require(lowered.status == 0, "prlimit: \(lowered.errors)")

            let served = try await offPool { () -> Int in
                var clients: [RawHTTPClient] = []
                for index in 0..<80 {
                    let client = try RawHTTPClient(port: port, timeout: 5)
                    try client.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-ID: crowd-\(index)\r\n\r\n")
                    clients.append(client)
                }
                // The first few are served; the gateway holds them open (keep-alive).
                for client in clients.prefix(3) {
                    #expect(try client.readResponse().status == 200)
                }
                Thread.sleep(forTimeInterval: 2)
                for client in clients { client.close() }
                // Once they are gone, the gateway serves again (the backlog drains first).
                let after = try RawHTTPClient(port: port, timeout: 10)
                return try after.request("GET", "/healthz").status
            }
            #expect(served == 200)
            gateway.signal(SIGTERM)
            let status = try await gateway.waitForExit()
            #expect(status == 0)
            let log = gateway.remainingStderr()
            let shortages = log.split(separator: "\n").filter { $0.contains("out of descriptors") }
            #expect(shortages.count >= 1, "the descriptors never ran out (limit \(limit)):\n\(log)")
            #expect(shortages.count <= 5, "\(shortages.count) shortage lines (limit \(limit)):\n\(log)")
        }

        /// A port nothing listens on now.
        static func freePort() throws -> Int {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
                }
            }
            guard bound else { throw RawHTTPClient.ClientError(description: "bind failed") }
            return Int(UInt16(bigEndian: address.sin_port))
        }

        // MARK: - Clients that leave

        /// Clients that vanish mid-head, mid-body, or before their answer, politely or with a
        /// reset, leave nothing behind: every request is released and the loop serves on.
        @Test func clientsThatLeaveMidRequestDoNoHarm() async throws {
            try await TestServer.with(router: TestRoutes.router(), threads: 1) { server in
                let port = server.port
                try await offPool {
                    let halfHead = try RawHTTPClient(port: port)
                    try halfHead.send("GET /healthz HTTP/1.1\r\nHo")
                    halfHead.close()
                    let halfHeadReset = try RawHTTPClient(port: port)
                    try halfHeadReset.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Re")
                    halfHeadReset.close(reset: true)
                    let halfBody = try RawHTTPClient(port: port)
                    try halfBody.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly part")
                    halfBody.close(reset: true)
                    let beforeAnswer = try RawHTTPClient(port: port)
                    try beforeAnswer.send("GET /slow?ms=200 HTTP/1.1\r\nHost: x\r\n\r\n")
                    beforeAnswer.close()
                    let beforeAnswerReset = try RawHTTPClient(port: port)
                    try beforeAnswerReset.send("GET /slow?ms=200 HTTP/1.1\r\nHost: x\r\n\r\n")
                    beforeAnswerReset.close(reset: true)
                }
                try await Self.waitUntil { server.server.inFlight == 0 }
                #expect(server.server.inFlight == 0)
                try await offPool {
                    let next = try RawHTTPClient(port: port)
                    #expect(try next.request("GET", "/healthz").status == 200)
                    #expect(try next.request("POST", "/echo", body: Array("still here".utf8)).text == "still here")
                }
            }
        }

        // MARK: - TLS

        /// HTTPS on the gateway's own connections: keep-alive and pipelining over one TLS
        /// connection (s_client), and a standard client reusing its connection (curl).
        @Test func servesHTTPSWithKeepAliveAndPipelining() async throws {
            let certificate = try TestCertificate(subjectAltNames: ["IP:127.0.0.1", "DNS:localhost"])
            let tls = TLSConfiguration(certificateFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
            try await TestServer.with(router: TestRoutes.router(), configure: { $0.tls = tls }) { server in
                let port = server.port
                try await offPool {
                    let bridge = try TLSBridge(port: port, caFile: certificate.certificateFile)
                    let client = bridge.client
                    let first = try client.request("GET", "/healthz")
                    #expect(first.status == 200)
                    #expect(first.text == #"{"status":"ok"}"#)
                    #expect(first.header("Connection") == nil)
                    let second = try client.request("POST", "/echo", body: Array("over tls".utf8))
                    #expect(second.status == 200)
                    #expect(second.text == "over tls")
                    // Two requests in one write, the last one closing the connection.
                    try client.send(
                        "GET /big?size=50000 HTTP/1.1\r\nHost: x\r\nX-Request-ID: tls-3\r\n\r\n"
                            + "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-ID: tls-4\r\nConnection: close\r\n\r\n")
                    let third = try client.readResponse()
                    #expect(third.status == 200)
                    #expect(third.header("X-Request-ID") == "tls-3")
                    #expect(third.body == TestRoutes.jsonBody(size: 50000))
                    let fourth = try client.readResponse()
                    #expect(fourth.status == 200)
                    #expect(fourth.header("X-Request-ID") == "tls-4")
                    #expect(fourth.text == #"{"status":"ok"}"#)
                    #expect(fourth.header("Connection") == "close")
                    #expect(client.isClosedByPeer())
                    // s_client ends cleanly once the server has closed the TLS connection.
                    let exit = bridge.waitForExit()
                    #expect(exit == 0, "s_client: \(String(decoding: bridge.stderr.fileHandleForReading.availableData, as: UTF8.self))")
                }
                let curl = try await offPool {
                    try Self.run("/usr/bin/curl", [
                        "--silent", "--show-error", "--cacert", certificate.certificateFile,
                        "--write-out", "\n%{http_code} %{num_connects}\n",
                        "https://127.0.0.1:\(port)/healthz", "https://127.0.0.1:\(port)/healthz",
                    ])
                }
                #expect(curl.status == 0, "\(curl.errors)")
                // The second URL went over the first one's connection (no new connect).
                #expect(curl.output == "{\"status\":\"ok\"}\n200 1\n{\"status\":\"ok\"}\n200 0\n")
            }
        }

        /// Large pipelined answers over TLS against a small output bound: partial TLS writes,
        /// paused reading and its release, all in order.
        @Test func pipelinedLargeAnswersOverTLSAllArrive() async throws {
            let certificate = try TestCertificate(subjectAltNames: ["IP:127.0.0.1"])
            let tls = TLSConfiguration(certificateFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
            try await TestServer.with(router: TestRoutes.router(), threads: 1, configure: {
                $0.tls = tls
                $0.maxOutputBytes = 64 * 1024
            }) { server in
                let port = server.port
                try await offPool {
                    let bridge = try TLSBridge(port: port, caFile: certificate.certificateFile)
                    let client = bridge.client
                    try client.send((0..<10).map { "GET /big?size=\(300_000 + $0) HTTP/1.1\r\nHost: x\r\nX-Request-ID: tb-\($0)\r\n\r\n" }.joined())
                    // Let the server's output back up behind the unread socket pair first.
                    Thread.sleep(forTimeInterval: 0.3)
                    for index in 0..<10 {
                        let response = try client.readResponse()
                        #expect(response.status == 200)
                        #expect(response.header("X-Request-ID") == "tb-\(index)")
                        #expect(response.body == TestRoutes.jsonBody(size: 300_000 + index))
                    }
                    let last = try client.request("GET", "/healthz", headers: ["Connection: close"])
                    #expect(last.status == 200)
                    #expect(client.isClosedByPeer())
                }
            }
        }

        /// Sessions read ahead: three requests in three TLS records of one TCP segment are taken
        /// with one `read(2)`, and the two records left in the session (no socket event will
        /// say they are there) are answered too.
        @Test func requestsInRecordsOfOneSegmentAreAllAnswered() async throws {
            let certificate = try TestCertificate(subjectAltNames: ["IP:127.0.0.1"])
            let tls = TLSConfiguration(certificateFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
            try await TestServer.with(router: TestRoutes.router(), threads: 1, configure: { $0.tls = tls }) { server in
                let port = server.port
                let text = try await offPool {
                    let client = try CorkedTLSClient(port: port, alpn: ["http/1.1"])
                    #expect(client.negotiated == "http/1.1")
                    try client.send(records: (1...3).map { index in
                        Array("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-ID: rec-\(index)\r\n\(index == 3 ? "Connection: close\r\n" : "")\r\n".utf8)
                    })
                    return String(decoding: try client.read { _ in false }, as: UTF8.self)
                }
                let ids = text.matches(of: /X-Request-ID: (rec-\d)/).map { String($0.1) }
                #expect(ids == ["rec-1", "rec-2", "rec-3"])
                #expect(text.matches(of: /HTTP\/1.1 200 OK/).count == 3)
            }
        }

        /// Runs `command` to its end; its status, stdout and stderr.
        static func run(_ command: String, _ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: command)
            process.arguments = arguments
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            let exited = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in exited.signal() }
            try process.run()
            let outputData = output.fileHandleForReading.readDataToEndOfFile()
            let errorData = errors.fileHandleForReading.readDataToEndOfFile()
            if exited.wait(timeout: .now() + 30) == .timedOut { process.terminate() }
            return (process.terminationStatus, String(decoding: outputData, as: UTF8.self), String(decoding: errorData, as: UTF8.self))
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
