import DemoOrigin
import Foundation
@testable import Gateway
import GatewaySupport
@testable import HTTPInterface
@testable import RedisClient
import TestSupport
import Testing
@testable import Transport

extension IntegrationTests {
    /// `redis-sentinel://`: a primary, its replica and three sentinels from Debian's
    /// `redis-server`, on free ports; the primary killed under load, a primary demoted under
    /// a connection, a replica named as the primary.
    @Suite struct RedisSentinel {
        /// What clients saw while the load ran.
        final class Load: Sendable {
            let stopped = Locked(false)
            /// Reads not answered 200: status (0: no answer) and target.
            let failedReads = Locked<[(Int, String)]>([])
            let reads = Locked(0)
            /// Each keyed create's first answer: key, status, `Location`.
            let creates = Locked<[(key: String, status: Int, location: String?)]>([])
            let group = DispatchGroup()

            /// Reads pages and details through every port in turn, on a thread of its own.
            func read(_ ports: [Int]) {
                group.enter()
                Thread.detachNewThread { [self] in
                    defer { group.leave() }
                    var turn = 0
                    while !stopped.withLock({ $0 }) {
                        let port = ports[turn % ports.count]
                        let target = turn % 3 == 0 ? "/v1/products?page=1" : "/v1/products/\(1 + turn % 5)"
                        turn += 1
                        let status = (try? RawHTTPClient(port: port).request("GET", target).status) ?? 0
                        reads.withLock { $0 += 1 }
                        if status != 200 { failedReads.withLock { $0.append((status, target)) } }
                        // Steady, not saturating: the machine also runs three gateways, Redis
                        // and three sentinels (under a sanitizer, slowly).
                        usleep(2_000)
                    }
                }
            }

            /// Sends keyed creates (a new key each) through every port in turn.
            func create(_ ports: [Int]) {
                group.enter()
                Thread.detachNewThread { [self] in
                    defer { group.leave() }
                    var turn = 0
                    while !stopped.withLock({ $0 }) {
                        let key = "failover-\(turn)"
                        let answer = try? IntegrationTests.ReplicaIdempotency.create(ports[turn % ports.count], key: key, title: "페일오버 \(turn)")
                        creates.withLock { $0.append((key, answer?.status ?? 0, answer?.header("Location"))) }
                        turn += 1
                        usleep(20_000)
                    }
                }
            }

            func stop() {
                stopped.withLock { $0 = true }
                group.wait()
            }
        }

        static func price(_ port: Int, _ id: Int) throws -> String? {
            try IntegrationTests.ReplicaPages.price(RawHTTPClient(port: port).request("GET", "/v1/products/\(id)"))
        }

        /// Three gateways under continuous reads and keyed creates while the primary is
        /// killed: no read fails; every gateway follows the new primary within the failover
        /// time plus a second; every create answered 201 replays afterwards, on any gateway,
        /// and the origin got exactly one create per such key; a page changed through one
        /// gateway during the failover is not served stale by the others afterwards.
        @Test func threeGatewaysFollowAFailoverUnderLoad() async throws {
            try await ReplicaHarness.withSentinels { harness in
                let group = try #require(harness.sentinels)
                let gateways = try (0..<3).map { _ in try harness.start() }
                let first = "127.0.0.1:\(group.first.port)"
                #expect(try await harness.wait(seconds: 10) {
                    gateways.allSatisfy { $0.server.redisReady && $0.server.replicaLinked && $0.server.redisPrimaryStatus?.primary == first }
                })
                // /readyz names the primary; no failover yet.
                let ready = try await offPool { try RawHTTPClient(port: gateways[0].port).request("GET", "/readyz") }.json()
                #expect(ready["redisPrimary"] as? String == first)
                #expect(ready["redisLastFailover"] == nil)
                // B and C hold product 3 in memory.
                #expect(try await offPool { try [1, 2].map { try Self.price(gateways[$0].port, 3) } } == ["KRW 890,000", "KRW 890,000"])

                let load = Load()
                let ports = gateways.map(\.port)
                load.read(ports)
                load.read(ports.reversed())
                load.create(ports)
                // Some creates before the kill.
                #expect(try await harness.wait { load.creates.withLock { $0.count } >= 5 })

                let killed = ContinuousClock.now
                group.first.stop()
                // Product 3 changed through A while there is no primary.
                let patched = try await offPool {
                    try RawHTTPClient(port: gateways[0].port).request(
                        "PATCH", "/v1/products/3", headers: ["Content-Type: application/json"],
                        body: Array(#"{"price":990000,"discountedPrice":99000,"password":"password"}"#.utf8))
                }
                #expect(patched.status == 200)

                let second = "127.0.0.1:\(group.second.port)"
                #expect(try await harness.wait(seconds: 15) { group.primaryPort() == group.second.port })
                let switched = ContinuousClock.now - killed
                var followed: [Duration?] = [nil, nil, nil]
                _ = try await harness.wait(seconds: 5) {
                    for (index, gateway) in gateways.enumerated() where followed[index] == nil {
                        if gateway.server.redisReady, gateway.server.redisPrimaryStatus?.primary == second { followed[index] = ContinuousClock.now - killed }
                    }
                    return followed.allSatisfy { $0 != nil }
                }
                for (index, time) in followed.enumerated() {
                    let time = try #require(time, "gateway \(index) did not follow")
                    #expect(time <= switched + .seconds(1), "gateway \(index) followed after \(time), the sentinels switched after \(switched)")
                }
                // Creates go on against the new primary for a moment.
                let before = load.creates.withLock { $0.count }
                #expect(try await harness.wait(seconds: 20) { load.creates.withLock { $0.filter { $0.status == 201 }.count } > before })
                load.stop()

                #expect(load.failedReads.withLock { $0 }.isEmpty, "reads that failed: \(load.failedReads.withLock { $0 })")
                #expect(load.reads.withLock { $0 } > 50)
                // Not served stale by B or C.
                #expect(try await offPool { try [1, 2].map { try Self.price(gateways[$0].port, 3) } } == ["KRW 990,000", "KRW 990,000"])

                // Every key answered 201 replays with the same product, and was created once.
                let creates = load.creates.withLock { $0 }
                let created = creates.filter { $0.status == 201 }
                #expect(creates.allSatisfy { [201, 503].contains($0.status) }, "\(creates.filter { ![201, 503].contains($0.status) })")
                for (turn, create) in created.enumerated() {
                    var replay: RawHTTPClient.Response?
                    let port = ports[(turn + 1) % ports.count]
                    // A client retries 409 (the key still held) and 503 (Redis busy: under a
                    // sanitizer the breaker may still be open), as `Retry-After` asks.
                    _ = try await harness.wait(seconds: 20) {
                        replay = try IntegrationTests.ReplicaIdempotency.create(port, key: create.key, title: "페일오버 \(create.key.dropFirst(9))")
                        return ![409, 503].contains(replay?.status ?? 0)
                    }
                    #expect(replay?.status == 201, "\(create.key)")
                    #expect(replay?.header("Idempotent-Replayed") == "true", "\(create.key)")
                    #expect(replay?.header("Location") == create.location, "\(create.key)")
                }
                #expect(harness.origin.counts.count("POST", "/item") == created.count)

                // /readyz tells the failover.
                let after = try await offPool { try RawHTTPClient(port: gateways[1].port).request("GET", "/readyz") }.json()
                #expect(after["redisPrimary"] as? String == second)
                let failover = try #require(after["redisLastFailover"] as? [String: Any])
                let durationMs = try #require(failover["durationMs"] as? Int)
                #expect(durationMs > 0 && Double(durationMs) <= Double(switched.components.seconds + 1) * 1000 + 1000)
                let metrics = String(decoding: gateways[1].metrics.render(), as: UTF8.self)
                #expect(metrics.contains("gateway_redis_failovers_total 1\n"))
                #expect(metrics.contains("gateway_redis_primary_missing_seconds_total "))
                for gateway in gateways { gateway.shutdown() }
            }
        }

        /// A's fetch of a page holds the shared lock (replicated) when the primary dies, and ends
        /// while there is none: A stores its entry and frees the lock on the new primary as soon
        /// as it can, so B, reading the page after the failover, gets A's entry instead of waiting
        /// out the lock and asking the origin again.
        @Test func aFetchCutByTheFailoverStillServesTheOtherGateways() async throws {
            try await ReplicaHarness.withSentinels { harness in
                let group = try #require(harness.sentinels)
                let a = try harness.start()
                let b = try harness.start()
                #expect(try await harness.wait(seconds: 10) { [a, b].allSatisfy { $0.server.redisReady } })
                harness.origin.setFaults(DemoFaults(latencyMs: 1500))
                let port = a.port
                async let fetched = offPool { try RawHTTPClient(port: port).request("GET", "/v1/products/9") }
                #expect(try await harness.wait { try group.second.cli("KEYS", "*:lock").contains(":lock") })
                group.first.stop()
                #expect(try await fetched.status == 200)
                let second = "127.0.0.1:\(group.second.port)"
                #expect(try await harness.wait(seconds: 15) {
                    [a, b].allSatisfy { $0.server.redisReady && $0.server.redisPrimaryStatus?.primary == second }
                })
                harness.origin.setFaults(DemoFaults())
                let fromB = try await offPool { try RawHTTPClient(port: b.port).request("GET", "/v1/products/9") }
                #expect(fromB.status == 200)
                #expect(fromB.header("Cache-Status")?.hasPrefix("open-market-gateway-shared; hit") == true, "\(fromB.header("Cache-Status") ?? "-")")
                #expect(harness.origin.counts.count("GET", "/item/9") == 1)
                a.shutdown()
                b.shutdown()
            }
        }

        /// One command connection that finds the primary through `nodes`, on a loop of its
        /// own, logging to `lines`.
        final class Client: Sendable {
            let loop: EventLoop
            let connection: RedisConnection
            let directory: SentinelDirectory?
            let health = RedisHealth()
            let lines = RecordingLogHandler.Lines()

            init(url: String, sentinelPassword: String? = nil, tls: TLSContext? = nil, nodes: (any RedisNodeSource)? = nil) throws {
                loop = try EventLoop(name: "sentinel-test")
                var configuration = try RedisConfiguration(url: url)
                configuration.sentinel?.password = sentinelPassword
                configuration.commandTimeout = .seconds(1)
                let logger = RecordingLogHandler.logger(lines)
                let source: any RedisNodeSource
                if let nodes {
                    source = nodes
                    directory = nil
                } else {
                    let made = SentinelDirectory(loop: loop, configuration: configuration, tls: tls, logger: logger, metrics: nil)
                    source = made
                    directory = made
                }
                connection = RedisConnection(loop: loop, configuration: configuration, tls: tls, health: health, logger: logger, nodes: source)
                directory?.register(connection)
                loop.start()
                connection.start()
            }

            /// Sends `commands` in one loop turn (pipelined, nothing between them); their results.
            func send(_ commands: [String]...) async -> [Result<RedisReply, RedisFailure>] {
                let connection = connection
                let results = Locked<[Result<RedisReply, RedisFailure>]>([])
                return await withCheckedContinuation { continuation in
                    loop.post {
                        for command in commands {
                            connection.send(command.map { Array($0.utf8) }) { result in
                                let all = results.withLock { $0.append(result); return $0 }
                                if all.count == commands.count { continuation.resume(returning: all) }
                            }
                        }
                    }
                }
            }

            /// The node the connection is on, once it is ready.
            var node: RedisNode? {
                let connection = connection
                let answer = Locked<RedisNode?>(nil)
                let done = DispatchSemaphore(value: 0)
                loop.post {
                    if case .ready = connection.phase { answer.withLock { $0 = connection.node } }
                    done.signal()
                }
                done.wait()
                return answer.withLock { $0 }
            }

            func close() {
                let connection = connection
                let directory = directory
                let closed = DispatchSemaphore(value: 0)
                loop.post {
                    connection.close()
                    directory?.close()
                    closed.signal()
                }
                closed.wait()
                loop.stop()
                loop.join()
            }
        }

        /// A primary demoted under a connection (the sentinels already name another, and no
        /// `+switch-master` reached this client): its first write refused `READONLY` makes it
        /// ask the sentinels again and move to the new primary. Sentinels with a password of
        /// their own: asked without it, they refuse, and the log says so.
        @Test func aDemotedPrimaryIsLeftAtItsFirstReadOnly() async throws {
            let group = try RedisSentinelGroup(sentinelPassword: "sentinel-pw")
            defer { group.stopAll() }
            let refused = try Client(url: group.url)
            #expect(try await poll { refused.lines.contains("redis sentinel did not answer", "NOAUTH") })
            #expect(refused.node == nil)
            refused.close()

            let client = try Client(url: group.url, sentinelPassword: "sentinel-pw")
            defer { client.close() }
            let first = RedisNode(host: "127.0.0.1", port: group.first.port)
            let second = RedisNode(host: "127.0.0.1", port: group.second.port)
            #expect(try await poll { client.node == first })
            // The sentinels are pointed at the second server by hand (no +switch-master), which
            // becomes a primary; the first stays one until the client's own pipelined REPLICAOF.
            #expect(try group.second.cli("REPLICAOF", "NO", "ONE") == "OK")
            for sentinel in group.sentinels {
                #expect(try sentinel.cli("SENTINEL", "REMOVE", RedisSentinelGroup.masterName) == "OK")
                #expect(try sentinel.cli("SENTINEL", "MONITOR", RedisSentinelGroup.masterName, "127.0.0.1", "\(group.second.port)", "2") == "OK")
            }
            let results = await client.send(["REPLICAOF", "127.0.0.1", "\(group.second.port)"], ["SET", "demoted", "1"])
            #expect(results.count == 2)
            guard results.count == 2, case .failure(.refused(let message)) = results[1] else {
                Issue.record("the write was not refused: \(results)")
                return
            }
            #expect(message.hasPrefix("READONLY"))
            #expect(try await poll { client.lines.contains("redis node is not the primary: asking the sentinels again", "READONLY") })
            #expect(try await poll { client.node == second })
            #expect(await client.send(["SET", "moved", "1"]).first.map { if case .success(.status("OK")) = $0 { true } else { false } } == true)
            #expect(try group.second.cli("GET", "moved") == "1")
        }

        /// Sources that name a replica first: the connection asks `ROLE`, leaves it, and asks
        /// again.
        final class ReplicaFirst: RedisNodeSource {
            let replica: RedisNode
            let primary: RedisNode
            let told = Locked<[RedisNode?]>([])

            init(replica: RedisNode, primary: RedisNode) {
                self.replica = replica
                self.primary = primary
            }

            func node(after failed: RedisNode?, on _: EventLoop, then: @escaping @Sendable (RedisNode?) -> Void) {
                let asked = told.withLock { $0.append(failed); return $0.count }
                then(asked == 1 ? replica : primary)
            }

            func connected(to _: RedisNode) {}
            var followsFailovers: Bool { true }
            func describe(_ node: RedisNode?) -> String { "test \(node.map(\.description) ?? "-")" }
        }

        @Test func aReplicaIsNeverTakenForThePrimary() async throws {
            let primary = try RedisTestServer()
            let replica = try RedisTestServer(replicaOf: primary.port)
            defer {
                replica.stop()
                primary.stop()
            }
            let source = ReplicaFirst(replica: RedisNode(host: "127.0.0.1", port: replica.port), primary: RedisNode(host: "127.0.0.1", port: primary.port))
            let client = try Client(url: primary.url, nodes: source)
            defer { client.close() }
            #expect(try await poll { client.node == source.primary })
            #expect(source.told.withLock { $0 } == [nil, source.replica])
            #expect(client.lines.contains("redis node is not the primary: asking the sentinels again", "why=ROLE says slave"))
        }

        /// `rediss-sentinel://`: TLS to the sentinel (it listens for nothing else) and to the
        /// server it names (its TLS port), both checked against the CA given.
        @Test func redissSentinelSpeaksTLSToTheSentinelsAndTheServers() async throws {
            let certificate = try TestCertificate(subjectAltNames: ["IP:127.0.0.1"])
            let files = RedisTestServer.TLS(certificateFile: certificate.certificateFile, keyFile: certificate.keyFile, caFile: certificate.certificateFile)
            let server = try RedisTestServer(tls: files)
            defer { server.stop() }
            let tlsPort = try #require(server.tlsPort)
            let sentinel = try RedisSentinelTestServer(watching: tlsPort, quorum: 1, tls: files)
            defer { sentinel.stop() }
            let client = try Client(url: "rediss-sentinel://127.0.0.1:\(sentinel.port)/\(RedisSentinelGroup.masterName)", tls: try TLSContext.client(caFile: certificate.certificateFile))
            defer { client.close() }
            #expect(try await poll { client.node == RedisNode(host: "127.0.0.1", port: tlsPort) })
            #expect(await client.send(["SET", "over-tls", "1"]).first.map { if case .success(.status("OK")) = $0 { true } else { false } } == true)
            #expect(try server.cli("GET", "over-tls") == "1")
            let clients = try server.cli("CLIENT", "LIST").split(separator: "\n")
            #expect(clients.contains { $0.contains("name=omg-commands-") && $0.contains(" laddr=127.0.0.1:\(tlsPort) ") })
        }
    }
}
