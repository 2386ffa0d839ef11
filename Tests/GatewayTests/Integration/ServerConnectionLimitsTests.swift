import Foundation
@testable import Gateway
@testable import GatewayRuntime
import Glibc
import Logging
import TestSupport
import Testing
@testable import Transport

extension IntegrationTests.ServerConnection {
    // What bounds a connection: back-pressure and the write deadline, the connection cap,
    // graceful drain, running out of descriptors, clients that leave.

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
        let port = try freeLoopbackPort()
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
}
