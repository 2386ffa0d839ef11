import Foundation
@testable import Gateway
@testable import GatewayRuntime
import TestSupport
import Testing
@testable import Transport

extension IntegrationTests {
    /// A connection waiting for its next request holds no read buffer: the loop lends one
    /// when bytes arrive and takes it back once nothing of a request is buffered.
    @Suite struct IdleConnection {
        /// Polls the server's read storage every 5 ms for up to 5 s until `condition` holds;
        /// returns the last reading.
        static func storage(
            of server: GatewayServer, until condition: ((holding: Int, spare: Int)) -> Bool
        ) async throws -> (holding: Int, spare: Int) {
            var reading = await server.readStorage()
            for _ in 0..<1000 where !condition(reading) {
                try await Task.sleep(for: .milliseconds(5))
                reading = await server.readStorage()
            }
            return reading
        }

        @Test func keepAliveConnectionsHoldNoBufferBetweenRequests() async throws {
            try await TestServer.with(threads: 1) { server in
                let port = server.port
                let clients = try await offPool {
                    try (0..<20).map { index in
                        let client = try RawHTTPClient(port: port)
                        let response = try client.request("GET", "/healthz", headers: ["X-Request-ID: idle-\(index)"])
                        #expect(response.status == 200)
                        #expect(response.header("X-Request-ID") == "idle-\(index)")
                        return client
                    }
                }
                let idle = try await Self.storage(of: server.server) { $0.holding == 0 }
                #expect(idle.holding == 0)
                // Answered one after another: one buffer served them all, and is kept spare.
                #expect(idle.spare == 1)

                // Part of a head: that connection holds a buffer until the request is whole.
                let first = clients[0]
                try await offPool { try first.send("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-ID: idle-partial\r\n") }
                let reading = try await Self.storage(of: server.server) { $0.holding == 1 }
                #expect(reading.holding == 1)
                #expect(reading.spare == 0)
                let response = try await offPool { () -> RawHTTPClient.Response in
                    try first.send("\r\n")
                    return try first.readResponse()
                }
                #expect(response.status == 200)
                #expect(response.header("X-Request-ID") == "idle-partial")
                let after = try await Self.storage(of: server.server) { $0.holding == 0 }
                #expect(after.holding == 0)
                #expect(after.spare == 1)
                // Every connection still works after giving its buffer back.
                let answers = try await offPool { try clients.map { try $0.request("GET", "/healthz").status } }
                #expect(answers == Array(repeating: 200, count: 20))
            }
        }

        /// The same over TLS: after the handshake and a request, the connection holds no read
        /// buffer of the gateway's (what OpenSSL keeps is measured by Benchmarks/idle.sh).
        @Test func tlsConnectionsHoldNoBufferBetweenRequests() async throws {
            let certificate = try TestCertificate(subjectAltNames: ["IP:127.0.0.1", "DNS:localhost"])
            let tls = TLSConfiguration(certificateFile: certificate.certificateFile, privateKeyFile: certificate.keyFile)
            try await TestServer.with(threads: 1, configure: { $0.tls = tls }) { server in
                let port = server.port
                let bridge = try await offPool { try TLSBridge(port: port, caFile: certificate.certificateFile) }
                let client = bridge.client
                let first = try await offPool { try client.request("GET", "/healthz") }
                #expect(first.status == 200)
                let idle = try await Self.storage(of: server.server) { $0.holding == 0 }
                #expect(idle.holding == 0)
                #expect(idle.spare == 1)
                let second = try await offPool { try client.request("GET", "/healthz", headers: ["Connection: close"]) }
                #expect(second.status == 200)
                #expect(second.text == #"{"status":"ok"}"#)
            }
        }
    }
}
