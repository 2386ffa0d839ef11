import Foundation
import GatewaySupport
@testable import HTTPInterface
import Logging
@testable import RedisClient
import TestSupport
import Testing
@testable import Transport

extension IntegrationTests {
    /// `rediss://`: the Redis connection over TLS against Debian's `redis-server` with a TLS
    /// port, certificates made for the test. What an operator sees when it cannot work: one
    /// log line that says why.
    @Suite struct RedisTLS {
        /// A connection on a loop of its own, logging to `lines`.
        final class Client: Sendable {
            let loop: EventLoop
            let connection: RedisConnection
            let health = RedisHealth()
            let lines = RecordingLogHandler.Lines()

            init(host: String, port: Int, tls: TLSContext?, secure: Bool = true, connectTimeout: Duration = .seconds(1),
                role: ((RedisConnection) -> RedisConnection.Role)? = nil, publisher: RedisConnection? = nil, on existing: EventLoop? = nil) throws {
                loop = try existing ?? EventLoop(name: "redis-tls-test")
                var configuration = RedisConfiguration(host: host, port: port)
                if secure { configuration.tls = RedisConfiguration.TLS() }
                configuration.commandTimeout = .seconds(2)
                configuration.connectTimeout = connectTimeout
                let logger = RecordingLogHandler.logger(lines)
                if let role, let publisher {
                    connection = RedisConnection(
                        loop: loop, configuration: configuration, tls: tls, health: health, logger: logger, role: role(publisher))
                } else {
                    connection = RedisConnection(loop: loop, configuration: configuration, tls: tls, health: health, logger: logger)
                }
                if existing == nil { loop.start() }
                connection.start()
            }

            /// Sends one command once the connection is up; its result.
            func send(_ arguments: String...) async throws -> Result<RedisReply, RedisFailure> {
                #expect(try await poll { self.health.connectedCount > 0 }, "connected")
                let connection = connection
                return await withCheckedContinuation { continuation in
                    loop.post {
                        connection.send(arguments.map { Array($0.utf8) }) { continuation.resume(returning: $0) }
                    }
                }
            }

            /// Waits for a log line holding every one of `parts`.
            func waitForLine(_ parts: String...) async throws -> Bool {
                try await poll { self.lines.contains(parts) }
            }

            func close(stoppingLoop: Bool = true) {
                let connection = connection
                let closed = DispatchSemaphore(value: 0)
                loop.post {
                    connection.close()
                    closed.signal()
                }
                closed.wait()
                if stoppingLoop {
                    loop.stop()
                    loop.join()
                }
            }
        }

        /// A redis-server whose TLS port presents a new certificate for `names`.
        private func server(certificateFor names: [String], clientCA: String? = nil) throws -> (RedisTestServer, TestCertificate) {
            let certificate = try TestCertificate(subjectAltNames: names)
            let server = try RedisTestServer(
                tls: .init(
                    certificateFile: certificate.certificateFile, keyFile: certificate.keyFile, caFile: clientCA ?? certificate.certificateFile,
                    requiresClientCertificate: clientCA != nil))
            return (server, certificate)
        }

        @Test func commandsAndTheSubscriptionWorkOverTLSByNameAndByAddress() async throws {
            let (server, certificate) = try server(certificateFor: ["DNS:localhost", "IP:127.0.0.1"])
            defer { server.stop() }
            let tls = try TLSContext.client(caFile: certificate.certificateFile)
            for host in ["localhost", "127.0.0.1"] {
                let client = try Client(host: host, port: try #require(server.tlsPort), tls: tls)
                defer { client.close() }
                #expect(try await client.send("SET", "tls-key-\(host)", "value over TLS") == .success(.status("OK")))
                #expect(try server.cli("GET", "tls-key-\(host)") == "value over TLS")
                // A reply larger than one TLS record (16 KiB) arrives whole.
                let large = String(repeating: "x", count: 100_000)
                #expect(try await client.send("SET", "large", large) == .success(.status("OK")))
                #expect(try await client.send("GET", "large") == .success(.bytes(Array(large.utf8))))
                #expect(client.lines.contains("redis connected", "rediss://\(host):\(server.tlsPort!)/0"))
            }
            // The subscription: a message published on the plain port arrives over TLS.
            let publisher = try Client(host: "127.0.0.1", port: try #require(server.tlsPort), tls: tls)
            let messages = Locked<[String]>([])
            let subscriber = try Client(
                host: "127.0.0.1", port: try #require(server.tlsPort), tls: tls,
                role: { publisher in
                    .subscriber(channel: "tls-channel", heartbeat: .publish(via: publisher)) { event in
                        switch event {
                        case .linked: messages.withLock { $0.append("linked") }
                        case .unlinked: messages.withLock { $0.append("unlinked") }
                        case .message(let payload): messages.withLock { $0.append(String(decoding: payload, as: UTF8.self)) }
                        }
                    }
                }, publisher: publisher.connection, on: publisher.loop)
            defer {
                subscriber.close(stoppingLoop: false)
                publisher.close()
            }
            #expect(try await poll { messages.withLock { $0.first } == "linked" })
            #expect(try server.cli("PUBLISH", "tls-channel", "hello") == "1")
            #expect(try await poll { messages.withLock { $0.contains("hello") } })
            #expect(messages.withLock { $0.contains("unlinked") } == false)
        }

        @Test func aCertificateFromAnotherCAIsRefusedAndSaidSo() async throws {
            let (server, _) = try server(certificateFor: ["IP:127.0.0.1"])
            defer { server.stop() }
            let other = try TestCertificate(subjectAltNames: ["IP:127.0.0.1"])
            let client = try Client(host: "127.0.0.1", port: try #require(server.tlsPort), tls: try TLSContext.client(caFile: other.certificateFile))
            defer { client.close() }
            #expect(try await client.waitForLine("redis connect failed", "TLS: the server's certificate was refused: self-signed certificate"))
            #expect(client.health.connectedCount == 0)
            #expect(client.lines.contains("redis connected") == false)
        }

        @Test func aCertificateForAnotherNameIsRefusedAndSaidSo() async throws {
            let (server, certificate) = try server(certificateFor: ["DNS:redis.example", "IP:10.9.8.7"])
            defer { server.stop() }
            let tls = try TLSContext.client(caFile: certificate.certificateFile)
            let byName = try Client(host: "localhost", port: try #require(server.tlsPort), tls: tls)
            defer { byName.close() }
            #expect(try await byName.waitForLine("redis connect failed", "TLS: the server's certificate was refused: hostname mismatch"))
            let byAddress = try Client(host: "127.0.0.1", port: try #require(server.tlsPort), tls: tls)
            defer { byAddress.close() }
            #expect(try await byAddress.waitForLine("redis connect failed", "TLS: the server's certificate was refused: IP address mismatch"))
            #expect(byName.health.connectedCount == 0)
            #expect(byAddress.health.connectedCount == 0)
        }

        @Test func aPlainTCPServerIsRefusedAndSaidSo() async throws {
            let server = try RedisTestServer()
            defer { server.stop() }
            let client = try Client(host: "127.0.0.1", port: server.port, tls: try TLSContext.client(), connectTimeout: .milliseconds(300))
            defer { client.close() }
            // Redis reads the handshake as an unfinished command and says nothing.
            #expect(try await client.waitForLine(
                "redis did not connect in time", "error=connected, and the TLS handshake got no answer: does the server speak TLS on this port?"))
            #expect(client.health.connectedCount == 0)
        }

        @Test func aClientCertificateIsPresentedWhenTheServerAsksForOne() async throws {
            let clientCertificate = try TestCertificate(subjectAltNames: ["DNS:gateway.test"])
            let (server, certificate) = try server(certificateFor: ["IP:127.0.0.1"], clientCA: clientCertificate.certificateFile)
            defer { server.stop() }
            let presenting = try TLSContext.client(
                caFile: certificate.certificateFile, certificateFile: clientCertificate.certificateFile, keyFile: clientCertificate.keyFile)
            let client = try Client(host: "127.0.0.1", port: try #require(server.tlsPort), tls: presenting)
            defer { client.close() }
            #expect(try await client.send("PING") == .success(.status("PONG")))

            // Without one, the server ends the connection, and the log says why: its alert
            // ("certificate required") when it is read before the connection is reset, else
            // the hint that follows a connection ended right after the handshake.
            let bare = try Client(host: "127.0.0.1", port: try #require(server.tlsPort), tls: try TLSContext.client(caFile: certificate.certificateFile))
            defer { bare.close() }
            #expect(try await bare.waitForLine("redis connect failed", "certificate"), "\(bare.lines.all)")
            #expect(bare.lines.all.allSatisfy { $0.contains("certificate required") || $0.contains("require a client certificate") }, "\(bare.lines.all)")
        }

        @Test func aKeyWithoutItsCertificateOrAMismatchedPairIsAClearError() throws {
            let one = try TestCertificate(subjectAltNames: ["DNS:a.test"])
            let another = try TestCertificate(subjectAltNames: ["DNS:b.test"])
            #expect {
                try TLSContext.client(keyFile: one.keyFile)
            } throws: { error in
                (error as? TransportError)?.description == "a client certificate needs its key, and a key its certificate"
            }
            #expect {
                try TLSContext.client(certificateFile: one.certificateFile, keyFile: another.keyFile)
            } throws: { error in
                (error as? TransportError)?.description.hasPrefix("cannot load the client certificate \(one.certificateFile) and key \(another.keyFile)") == true
            }
        }
    }
}
