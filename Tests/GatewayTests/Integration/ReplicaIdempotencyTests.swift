import DemoOrigin
import Foundation
@testable import Gateway
@testable import HTTPInterface
import TestSupport
import Testing

extension IntegrationTests {
    /// `Idempotency-Key` across replicas and restarts, with a real `redis-server`: two or
    /// three gateways on one demo origin, the origin counting the creates it gets.
    @Suite struct ReplicaIdempotency {
        static let json = ["Content-Type: application/json"]

        static func create(_ port: Int, key: String?, title: String = "복제 상품", password: String = "pw1234") throws -> RawHTTPClient.Response {
            let body = WritePath.createJSON(title: title).replacingPassword(with: password)
            return try RawHTTPClient(port: port).request(
                "POST", "/v1/products", headers: json + (key.map { ["Idempotency-Key: \($0)"] } ?? []), body: body)
        }

        /// `/readyz`'s status and its `redis` member.
        static func readiness(_ port: Int) throws -> (status: Int, redis: String?) {
            let answer = try RawHTTPClient(port: port).request("GET", "/readyz")
            return (answer.status, try answer.json()["redis"] as? String)
        }

        /// The same key sent to A and B at the same moment: one create reaches the origin, both
        /// clients get its answer. After A restarts, the key still replays; with another body
        /// it is 422 on any replica.
        @Test func oneCreatePerKeyAcrossReplicasAndRestarts() async throws {
            try await ReplicaHarness.with { harness in
                // The origin is slow, so both requests arrive while the first is running.
                harness.origin.setFaults(DemoFaults(latencyMs: 300))
                let a = try harness.start()
                let b = try harness.start()
                let ports = [a.port, b.port]
                let answers = try await offPool { atOnce(2) { try Self.create(ports[$0], key: "order-77") } }
                let (first, second) = (answers[0], answers[1])
                let one = try #require(first)
                let two = try #require(second)
                #expect(one.status == 201)
                #expect(two.status == 201)
                #expect(one.header("Location") != nil)
                #expect(one.header("Location") == two.header("Location"))
                #expect([one.header("Idempotent-Replayed"), two.header("Idempotent-Replayed")].compactMap { $0 } == ["true"])
                #expect(harness.origin.counts.count("POST", "/item") == 1)

                // A restarts: a new process with nothing in memory.
                a.server.shutdown()
                harness.origin.setFaults(DemoFaults())
                let restarted = try harness.start()
                let port = restarted.port
                let (again, reused) = try await offPool {
                    (try Self.create(port, key: "order-77"), try Self.create(b.port, key: "order-77", title: "다른 상품"))
                }
                #expect(again.status == 201)
                #expect(again.header("Idempotent-Replayed") == "true")
                #expect(again.header("Location") == one.header("Location"))
                #expect(again.body == one.body || again.body == two.body)
                #expect(reused.status == 422)
                #expect(try reused.json()["type"] as? String == "urn:open-market-gateway:problem:idempotency-key-reused")
                #expect(harness.origin.counts.count("POST", "/item") == 1)
                restarted.server.shutdown()
                b.server.shutdown()
            }
        }

        /// A key is scoped by the credentials sent with it: the same key with another password
        /// is another client's key, not a reuse.
        @Test func theKeyIsScopedByCredentials() async throws {
            try await ReplicaHarness.with { harness in
                let a = try harness.start()
                let b = try harness.start()
                let (mine, theirs) = try await offPool {
                    (try Self.create(a.port, key: "k-1", password: "pw-one"), try Self.create(b.port, key: "k-1", password: "pw-two"))
                }
                #expect(mine.status == 201)
                #expect(theirs.status == 201)
                #expect(theirs.header("Idempotent-Replayed") == nil)
                #expect(mine.header("Location") != theirs.header("Location"))
                #expect(harness.origin.counts.count("POST", "/item") == 2)
                a.server.shutdown()
                b.server.shutdown()
            }
        }

        /// A retry while the first request still runs, past the wait bound: 409 with
        /// `Retry-After`, and still one create.
        @Test func aRetryPastTheWaitBoundIs409() async throws {
            try await ReplicaHarness.with { harness in
                harness.origin.setFaults(DemoFaults(latencyMs: 2500))
                let a = try harness.start { $0.origin.client.requestTimeout = .seconds(5) }
                let b = try harness.start { $0.origin.client.requestTimeout = .milliseconds(500) }
                let (first, retry) = try await offPool {
                    let group = DispatchGroup()
                    nonisolated(unsafe) var first: RawHTTPClient.Response?
                    group.enter()
                    Thread.detachNewThread {
                        first = try? Self.create(a.port, key: "slow-1")
                        group.leave()
                    }
                    usleep(300_000)
                    let retry = try Self.create(b.port, key: "slow-1")
                    group.wait()
                    return (first, retry)
                }
                #expect(first?.status == 201)
                #expect(retry.status == 409)
                #expect(retry.header("Retry-After") == "1")
                #expect(try retry.json()["type"] as? String == "urn:open-market-gateway:problem:idempotency-key-in-use")
                #expect(harness.origin.counts.count("POST", "/item") == 1)
                a.server.shutdown()
                b.server.shutdown()
            }
        }

        /// Redis stopped: keyed creates fail closed (503, `Retry-After`, nothing sent), unkeyed
        /// creates and reads go on. Redis started again: keyed creates work again without
        /// restarting the gateway.
        @Test func redisDownFailsKeyedCreatesClosedAndRecovers() async throws {
            try await ReplicaHarness.with { harness in
                let a = try harness.start()
                let port = a.port
                // `/readyz` says whether Redis is reachable; its status stays 200.
                #expect(try await harness.wait { try Self.readiness(port).redis == "up" })
                harness.redis.stop()
                #expect(try await harness.wait { try Self.readiness(port).redis == "down" })
                #expect(try Self.readiness(port).status == 200)
                let (keyed, unkeyed, read) = try await offPool {
                    (try Self.create(port, key: "down-1"), try Self.create(port, key: nil), try RawHTTPClient(port: port).request("GET", "/v1/products/1"))
                }
                #expect(keyed.status == 503)
                #expect(keyed.header("Retry-After") == "2")
                #expect(try keyed.json()["type"] as? String == "urn:open-market-gateway:problem:idempotency-unavailable")
                #expect(unkeyed.status == 201)
                #expect(read.status == 200)
                #expect(harness.origin.counts.count("POST", "/item") == 1)

                try harness.redis.start()
                var recovered: RawHTTPClient.Response?
                let back = try await harness.wait(seconds: 10) {
                    recovered = try Self.create(port, key: "down-1")
                    return recovered?.status != 503
                }
                #expect(back)
                #expect(recovered?.status == 201)
                #expect(recovered?.header("Idempotent-Replayed") == nil)
                #expect(harness.origin.counts.count("POST", "/item") == 2)
                #expect(try Self.readiness(port).redis == "up")
                a.server.shutdown()
            }
        }

        /// A primary with a replica: a keyed create waits for it (`WAIT`), so the record is on the
        /// replica when the client is answered. A replica that does not acknowledge (frozen):
        /// the claim is released and the create refused, unsent; thawed, the same key creates.
        @Test func withAReplicaKeyedCreatesWaitForItsAcknowledgement() async throws {
            try await ReplicaHarness.with { harness in
                let replica = try RedisTestServer(replicaOf: harness.redis.port)
                defer { replica.stop() }
                #expect(try await harness.wait(seconds: 10) { try replica.cli("INFO", "replication").contains("master_link_status:up") })
                let a = try harness.start()
                #expect(try await harness.wait { a.server.redisReady && a.server.redisReplicasConnected == 1 })
                let first = try await offPool { try Self.create(a.port, key: "wait-1") }
                #expect(first.status == 201)
                // Answered after the replica acknowledged the finished record.
                let keys = try replica.cli("KEYS", "*idem:*").split(separator: "\n")
                #expect(keys.count == 1)
                #expect(try replica.cli("GET", String(try #require(keys.first))).hasPrefix("D"))
                // Each loop keeps a connection for these records: the WAITs (proven by the 503
                // below) never ran on the one reads use.
                let clients = try harness.redis.cli("CLIENT", "LIST", "TYPE", "normal").split(separator: "\n")
                let durable = clients.filter { $0.contains("name=omg-durable-\(a.server.redisInstance)") }
                #expect(durable.count == 2)
                #expect(clients.contains { $0.contains("name=omg-commands-\(a.server.redisInstance)") && $0.contains(" cmd=wait ") } == false)

                // Asking for more replicas than there are: refused, unsent.
                let greedy = try harness.start { $0.redis?.waitReplicas = 2 }
                #expect(try await harness.wait { greedy.server.redisReady })
                let refused = try await offPool { try Self.create(greedy.port, key: "wait-3") }
                #expect(refused.status == 503)
                #expect(harness.origin.counts.count("POST", "/item") == 1)
                greedy.server.shutdown()

                replica.pause()
                let unsure = try await offPool { try Self.create(a.port, key: "wait-2") }
                #expect(unsure.status == 503)
                #expect(unsure.header("Retry-After") == "2")
                #expect(try unsure.json()["type"] as? String == "urn:open-market-gateway:problem:idempotency-unavailable")
                #expect(harness.origin.counts.count("POST", "/item") == 1)
                // Released: only wait-1's record is left on the primary.
                #expect(try await harness.wait { try harness.redis.cli("KEYS", "*idem:*").split(separator: "\n").count == 1 })

                replica.resume()
                var retried: RawHTTPClient.Response?
                #expect(try await harness.wait(seconds: 10) {
                    retried = try Self.create(a.port, key: "wait-2")
                    return retried?.status != 503
                })
                #expect(retried?.status == 201)
                #expect(harness.origin.counts.count("POST", "/item") == 2)
                a.server.shutdown()
            }
        }

        /// A Redis with a password: the gateway authenticates, and the URL it logs leaves the
        /// password out.
        @Test func aPasswordProtectedRedis() async throws {
            try await ReplicaHarness.with(redisPassword: "s3cret-redis-pw") { harness in
                let a = try harness.start()
                let b = try harness.start()
                let (first, replayed) = try await offPool {
                    (try Self.create(a.port, key: "auth-1"), try Self.create(b.port, key: "auth-1"))
                }
                #expect(first.status == 201)
                #expect(replayed.status == 201)
                #expect(replayed.header("Idempotent-Replayed") == "true")
                #expect(harness.origin.counts.count("POST", "/item") == 1)
                let configuration = try RedisConfiguration(url: harness.redis.url)
                #expect(configuration.description == "redis://:<redacted>@127.0.0.1:\(harness.redis.port)/0")
                a.server.shutdown()
                b.server.shutdown()
            }
        }
    }
}

extension [UInt8] {
    /// A create body with another `password` (the test bodies use `pw1234`).
    func replacingPassword(with password: String) -> [UInt8] {
        Array(String(decoding: self, as: UTF8.self).replacingOccurrences(of: #""password":"pw1234""#, with: #""password":"\#(password)""#).utf8)
    }
}
