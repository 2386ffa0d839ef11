import DemoOrigin
import Foundation
import Testing
import TestSupport
@testable import Gateway

extension IntegrationTests {
    /// The shared page tier and invalidation across replicas, with a real `redis-server`.
    @Suite struct ReplicaPages {
        static func get(_ port: Int, _ target: String) throws -> RawHTTPClient.Response {
            try RawHTTPClient(port: port).request("GET", target)
        }

        static func price(_ response: RawHTTPClient.Response) throws -> String? {
            (try response.json()["display"] as? [String: Any])?["price"] as? String
        }

        /// How many page entries Redis holds (locks aside).
        /// The id of the Redis client named `name` (`CLIENT LIST`), nil when there is none.
        static func clientID(named name: String, in harness: ReplicaHarness) throws -> String? {
            let clients = try harness.redis.cli("CLIENT", "LIST")
            return clients.split(separator: "\n").first { $0.contains("name=\(name) ") }?
                .split(separator: " ").first { $0.hasPrefix("id=") }.map { String($0.dropFirst(3)) }
        }

        /// With Redis unusable, product 7 read through A and through B: both answer from the
        /// origin within the bound (no read waits on Redis past its deadline). A's answer.
        static func readTheOriginWithoutRedis(_ harness: ReplicaHarness, _ a: ReplicaHarness.Replica, _ b: ReplicaHarness.Replica) async throws
            -> RawHTTPClient.Response
        {
            let started = ContinuousClock.now
            let (first, second) = try await offPool { (try Self.get(a.port, "/v1/products/7"), try Self.get(b.port, "/v1/products/7")) }
            #expect(ContinuousClock.now - started < .seconds(3))
            #expect(first.status == 200)
            #expect(second.status == 200)
            #expect(harness.origin.counts.count("GET", "/item/7") == 2)
            return first
        }

        /// Redis usable again: product 8 fetched through A is a shared hit through B.
        static func expectSharedPagesAgain(_ harness: ReplicaHarness, _ a: ReplicaHarness.Replica, _ b: ReplicaHarness.Replica) async throws {
            let (shared, fromShared) = try await offPool { (try Self.get(a.port, "/v1/products/8"), try Self.get(b.port, "/v1/products/8")) }
            #expect(shared.header("Cache-Status") == "open-market-gateway-shared; fwd=miss; stored, open-market-gateway; fwd=miss; stored")
            #expect(fromShared.header("Cache-Status")?.hasPrefix("open-market-gateway-shared; hit") == true)
            #expect(harness.origin.counts.count("GET", "/item/8") == 1)
        }

        static func storedPages(_ harness: ReplicaHarness) throws -> Int {
            try harness.redis.cli("KEYS", "*page:*").split(separator: "\n").filter { !$0.hasSuffix(":lock") }.count
        }

        /// Page 1 and a detail through A, then through B: one origin request each, B's answers
        /// from the shared tier with the same ETag and bytes.
        @Test func aPageFetchedThroughOneReplicaServesTheOthers() async throws {
            try await ReplicaHarness.with { harness in
                let a = try harness.start()
                let b = try harness.start()
                #expect(try await harness.wait { a.server.redisReady && b.server.redisReady })
                let (listA, detailA) = try await offPool {
                    (try Self.get(a.port, "/v1/products?page=1"), try Self.get(a.port, "/v1/products/3"))
                }
                // A stores in Redis after it answers, and prefetches page 2 after page 1: B asks
                // once the three entries are there (else B could find only A's lock, and count
                // a hit after waiting).
                #expect(try await harness.wait { try Self.storedPages(harness) == 3 })
                let (listB, detailB) = try await offPool {
                    (try Self.get(b.port, "/v1/products?page=1"), try Self.get(b.port, "/v1/products/3"))
                }
                #expect(listA.status == 200)
                #expect(listA.header("Cache-Status") == "open-market-gateway-shared; fwd=miss; stored, open-market-gateway; fwd=miss; stored")
                #expect(listB.header("Cache-Status")?.hasPrefix("open-market-gateway-shared; hit; ttl=") == true)
                #expect(listB.header("Cache-Status")?.hasSuffix(", open-market-gateway; fwd=miss; stored") == true)
                #expect(listB.header("ETag") == listA.header("ETag"))
                #expect(listB.body == listA.body)
                #expect(detailB.header("ETag") == detailA.header("ETag"))
                #expect(detailB.body == detailA.body)
                #expect(harness.origin.counts.count("GET", "/items/1") == 1)
                #expect(harness.origin.counts.count("GET", "/item/3") == 1)
                // B now has it in its own cache.
                let again = try await offPool { try Self.get(b.port, "/v1/products/3") }
                #expect(again.header("Cache-Status")?.hasPrefix("open-market-gateway; hit; ttl=") == true)
                // Page 1, its prefetched page 2 and the detail: three hits in the shared tier.
                let metrics = { String(decoding: b.routes.reads.metrics.render(), as: UTF8.self) }
                #expect(try await harness.wait { metrics().contains(#"gateway_cache_events_total{cache="page_shared",event="hit"} 3"#) })
                #expect(metrics().contains(#"gateway_cache_events_total{cache="page_shared",event="miss"} 0"#))
                a.server.shutdown()
                b.server.shutdown()
            }
        }

        /// A and B miss the same product at the same moment: one origin request.
        @Test func concurrentMissesAcrossReplicasMakeOneOriginRequest() async throws {
            try await ReplicaHarness.with { harness in
                harness.origin.setFaults(DemoFaults(latencyMs: 300))
                let a = try harness.start()
                let b = try harness.start()
                #expect(try await harness.wait { a.server.redisReady && b.server.redisReady })
                let ports = [a.port, b.port]
                let answers = try await offPool { atOnce(2) { try Self.get(ports[$0], "/v1/products/5") } }
                #expect(answers.map { $0?.status } == [200, 200])
                #expect(answers[0]?.header("ETag") == answers[1]?.header("ETag"))
                #expect(harness.origin.counts.count("GET", "/item/5") == 1)
                a.server.shutdown()
                b.server.shutdown()
            }
        }

        /// The replica that took the fetch fails: the one waiting for its entry stops waiting
        /// when the lock goes, long before the lock would run out, and answers as it did: the
        /// page backs off on every replica (`--origin-retry-max`), so it does not ask again.
        @Test func aFailedFetchFreesTheReplicasWaitingForIt() async throws {
            try await ReplicaHarness.with { harness in
                harness.origin.setFaults(DemoFaults(latencyMs: 300, errorRate: 1))
                let a = try harness.start()
                let b = try harness.start()
                #expect(try await harness.wait { a.server.redisReady && b.server.redisReady })
                let started = ContinuousClock.now
                let ports = [a.port, b.port]
                let statuses = try await offPool { atOnce(2) { try Self.get(ports[$0], "/v1/products/9").status } }
                #expect(statuses == [502, 502])
                // The lock lasts the origin's connect and request timeouts (7 s here).
                #expect(ContinuousClock.now - started < .seconds(3))
                #expect(harness.origin.counts.count("GET", "/item/9") == 1)
                a.server.shutdown()
                b.server.shutdown()
            }
        }

        /// A's fetch fails: B, asked afterwards, answers the same failure at once with
        /// `Retry-After` and sends nothing, and so does C, which starts later; once the backoff
        /// ends one replica asks again.
        @Test func aFailedFetchBacksOffEveryReplica() async throws {
            try await ReplicaHarness.with { harness in
                harness.origin.setFaults(DemoFaults(errorRate: 1))
                let a = try harness.start()
                let b = try harness.start()
                #expect(try await harness.wait { a.server.redisReady && b.server.redisReady })
                let first = try await offPool { try Self.get(a.port, "/v1/products/11") }
                #expect(first.status == 502 && first.header("Retry-After") == nil)
                let fromB = try await offPool { try Self.get(b.port, "/v1/products/11") }
                #expect(fromB.status == 502)
                #expect(fromB.header("Retry-After") == "1")
                #expect(try fromB.json()["detail"] as? String == "The origin answered 500.")
                let c = try harness.start()
                #expect(try await harness.wait { c.server.redisReady })
                #expect(try await offPool { try Self.get(c.port, "/v1/products/11") }.status == 502)
                #expect(harness.origin.counts.count("GET", "/item/11") == 1)
                harness.origin.setFaults(DemoFaults())
                try await Task.sleep(for: .milliseconds(1100))
                #expect(try await offPool { try Self.get(b.port, "/v1/products/11") }.status == 200)
                #expect(harness.origin.counts.count("GET", "/item/11") == 2)
                for replica in [a, b, c] { replica.server.shutdown() }
            }
        }

        /// The recovery slots' scripts as Redis runs them: a lock takes a slot while one is
        /// free, a held lock is reported before a full set, freeing a lock frees its slot, and a
        /// slot whose lock ran out (its replica died) frees itself.
        @Test func recoverySlotsAreTakenFreedAndRunOut() async throws {
            try await ReplicaHarness.with { harness in
                func take(_ lock: String, ms: Int) throws -> String {
                    try harness.redis.cli(["EVAL", SharedPages.slotLockScript, "2", lock, "slots", String(ms), "2"])
                        .trimmingCharacters(in: .whitespacesAndNewlines)
                }
                #expect(try take("a", ms: 5000) == "1")
                #expect(try take("b", ms: 2000) == "1")
                let bTaken = ContinuousClock.now
                #expect(try take("c", ms: 5000) == "-1")
                #expect(try take("a", ms: 5000) == "0")
                _ = try harness.redis.cli(["EVAL", SharedPages.slotUnlockScript, "2", "a", "slots"])
                #expect(try harness.redis.cli("EXISTS", "a").trimmingCharacters(in: .whitespacesAndNewlines) == "0")
                #expect(try take("c", ms: 5000) == "1")
                #expect(try take("d", ms: 5000) == "-1")
                // (Each redis-cli run takes a while: b's 2 s are well past these checks.)
                try await Task.sleep(until: bTaken + .milliseconds(2100))
                // b's lock ran out without an unlock: its slot went with it.
                #expect(try take("d", ms: 5000) == "1")
                #expect(try harness.redis.cli("ZCARD", "slots").trimmingCharacters(in: .whitespacesAndNewlines) == "2")
            }
        }

        /// While the origin recovers, every replica together refreshes stored pages
        /// ``ProductReads/recoveryRefreshes`` at a time: A, refreshing four stale details,
        /// holds every slot, so B serves its two expired details as they are
        /// (`refresh-deferred`) and refreshes them on a later read, when slots are free.
        @Test func afterAnOutageTheReplicasRefreshAFewPagesAtATimeTogether() async throws {
            try await ReplicaHarness.with { harness in
                let timeToLive = Duration.seconds(2)
                let configure: (inout GatewayConfiguration) -> Void = {
                    $0.readPath.detailTimeToLive = timeToLive
                    $0.origin.breaker.failures = 1
                    $0.origin.breaker.openFor = .milliseconds(200)
                }
                let a = try harness.start(configure)
                // B serves nothing stale while it refreshes: its old pages are expired.
                let b = try harness.start { configure(&$0); $0.readPath.cache.staleWhileRevalidate = .zero }
                #expect(try await harness.wait { a.server.redisReady && b.server.redisReady })
                // Both hold details 1…6: A from the origin, B from the shared tier.
                let stored = ContinuousClock.now
                for id in 1...6 { #expect(try await offPool { try Self.get(a.port, "/v1/products/\(id)") }.status == 200) }
                #expect(try await harness.wait { try Self.storedPages(harness) == 6 })
                for id in 1...6 { #expect(try await offPool { try Self.get(b.port, "/v1/products/\(id)") }.status == 200) }
                #expect(harness.origin.counts.route("GET", "/item/{id}") == 6)
                // An outage opens both breakers; after it a probe closes each: both recover.
                harness.origin.setFaults(DemoFaults(errorRate: 1))
                #expect(try await offPool { try Self.get(a.port, "/v1/products/30") }.status == 502)
                #expect(try await offPool { try Self.get(b.port, "/v1/products/31") }.status == 502)
                harness.origin.setFaults(DemoFaults())
                try await Task.sleep(for: .milliseconds(250))
                #expect(try await offPool { try Self.get(a.port, "/v1/products/32") }.status == 200)
                #expect(try await offPool { try Self.get(b.port, "/v1/products/33") }.status == 200)
                try await Task.sleep(until: stored + timeToLive + .milliseconds(200))

                // Details 1…6 are stale everywhere. A slow origin keeps A's refreshes running.
                harness.origin.setFaults(DemoFaults(latencyMs: 3000))
                harness.origin.resetCounts()
                for id in 1...6 {
                    let stale = try await offPool { try Self.get(a.port, "/v1/products/\(id)") }
                    #expect(stale.status == 200)
                    // 1…4 took A's four slots; 5 and 6 found none.
                    #expect(stale.header("Cache-Status") == (id <= 4 ? CacheStatus.staleWhileRevalidating.value : CacheStatus.refreshDeferred.value))
                }
                #expect(try await harness.wait { harness.origin.counts.route("GET", "/item/{id}") == 4 })
                // B has slots of its own, but the replicas' four are A's.
                for id in 5...6 {
                    let deferred = try await offPool { try Self.get(b.port, "/v1/products/\(id)") }
                    #expect(deferred.status == 200)
                    #expect(deferred.header("Cache-Status") == CacheStatus.refreshDeferred.value)
                }
                let metricsB = String(decoding: b.routes.reads.metrics.render(), as: UTF8.self)
                #expect(metricsB.contains(#"gateway_cache_events_total{cache="page_shared",event="refresh_deferred"} 2"#))
                let metricsA = String(decoding: a.routes.reads.metrics.render(), as: UTF8.self)
                #expect(metricsA.contains(#"gateway_cache_events_total{cache="page",event="refresh_deferred"} 2"#))
                // A's four refreshes end and free the slots; nothing else reached the origin.
                let slots = b.routes.reads.shared!.refreshSlotsKey
                #expect(try await harness.wait(seconds: 10) { try harness.redis.cli("EXISTS", slots).hasPrefix("0") })
                #expect(harness.origin.counts.route("GET", "/item/{id}") == 4)
                #expect((1...4).map { harness.origin.counts.count("GET", "/item/\($0)") } == [1, 1, 1, 1])
                // A later read through B refreshes detail 5.
                harness.origin.setFaults(DemoFaults())
                let refreshed = try await offPool { try Self.get(b.port, "/v1/products/5") }
                #expect(refreshed.header("Cache-Status") == "open-market-gateway-shared; fwd=miss; stored, open-market-gateway; fwd=stale; stored")
                #expect(harness.origin.counts.count("GET", "/item/5") == 1)
                a.server.shutdown()
                b.server.shutdown()
            }
        }

        /// A PATCH through A: B and C, which had the product and page 1 in their own caches,
        /// show the new price within a second.
        @Test func aWriteThroughOneReplicaReachesEveryReplica() async throws {
            try await ReplicaHarness.with { harness in
                let a = try harness.start()
                let b = try harness.start()
                let c = try harness.start()
                #expect(try await harness.wait { [a, b, c].allSatisfy { $0.server.redisReady && $0.server.replicaLinked } })
                let before = try await offPool {
                    try [b, c].map { try Self.price(Self.get($0.port, "/v1/products/3")) }
                }
                #expect(before == ["KRW 890,000", "KRW 890,000"])
                let patched = try await offPool {
                    try RawHTTPClient(port: a.port).request(
                        "PATCH", "/v1/products/3", headers: ["Content-Type: application/json"],
                        body: Array(#"{"price":990000,"discountedPrice":99000,"password":"password"}"#.utf8))
                }
                #expect(patched.status == 200)
                var seen: [String?] = []
                let everywhere = try await harness.wait(seconds: 1) {
                    seen = try [b, c].map { try Self.price(Self.get($0.port, "/v1/products/3")) }
                    return seen == ["KRW 990,000", "KRW 990,000"]
                }
                #expect(everywhere, "B and C showed \(seen)")
                #expect(harness.origin.counts.count("PATCH", "/item/3") == 1)
                for replica in [a, b, c] { replica.server.shutdown() }
            }
        }

        /// B's subscription is cut (`CLIENT KILL`) and A writes before B is subscribed again:
        /// B missed the message, yet does not serve the page it had.
        @Test func aReplicaThatLostItsSubscriptionStopsTrustingItsPages() async throws {
            try await ReplicaHarness.with { harness in
                let a = try harness.start()
                let b = try harness.start()
                #expect(try await harness.wait { [a, b].allSatisfy { $0.server.redisReady && $0.server.replicaLinked } })
                let before = try await offPool { try Self.price(Self.get(b.port, "/v1/products/3")) }
                #expect(before == "KRW 890,000")
                let name = "omg-subscriber-\(b.server.redisInstance)"
                let id = try #require(try Self.clientID(named: name, in: harness))
                #expect(try harness.redis.cli("CLIENT", "KILL", "ID", id) == "1")
                let patched = try await offPool {
                    try RawHTTPClient(port: a.port).request(
                        "PATCH", "/v1/products/3", headers: ["Content-Type: application/json"],
                        body: Array(#"{"price":990000,"discountedPrice":99000,"password":"password"}"#.utf8))
                }
                #expect(patched.status == 200)
                let after = try await offPool { try Self.get(b.port, "/v1/products/3") }
                #expect(try Self.price(after) == "KRW 990,000")
                #expect(after.header("Cache-Status")
                    == "open-market-gateway-shared; fwd=miss; stored, open-market-gateway; fwd=stale; stored; detail=revalidate-after-gap")
                // And B subscribes again by itself.
                #expect(try await harness.wait { b.server.replicaLinked })
                a.server.shutdown()
                b.server.shutdown()
            }
        }

        /// A replica that lost its subscription revalidates its pages rather than dropping
        /// them: with the origin failing meanwhile, it still answers with what it had, marked
        /// stale.
        @Test func aPageKeptThroughAGapIsServedStaleWhenTheOriginFails() async throws {
            try await ReplicaHarness.with { harness in
                let b = try harness.start()
                #expect(try await harness.wait { b.server.redisReady && b.server.replicaLinked })
                let before = try await offPool { try Self.get(b.port, "/v1/products/4") }
                #expect(before.status == 200)
                let name = "omg-subscriber-\(b.server.redisInstance)"
                let id = try #require(try Self.clientID(named: name, in: harness))
                harness.origin.setFaults(DemoFaults(errorRate: 1))
                // And the shared tier forgets the page, so only the origin could answer.
                #expect(try harness.redis.cli("FLUSHALL") == "OK")
                #expect(try harness.redis.cli("CLIENT", "KILL", "ID", id) == "1")
                // Subscribed again (a new connection): the gap is over, and B knows it had one.
                #expect(try await harness.wait {
                    let now = try Self.clientID(named: name, in: harness)
                    return b.server.replicaLinked && now != nil && now != id
                })
                let kept = try await offPool { try Self.get(b.port, "/v1/products/4") }
                #expect(kept.status == 200)
                #expect(kept.body == before.body)
                #expect(kept.header("Cache-Status") == "open-market-gateway; hit; fwd=stale; fwd-status=500")
                b.server.shutdown()
            }
        }

        /// Redis frozen (SIGSTOP: connections open, nothing answers): reads answer within their
        /// deadline, and every replica notices the silence on its own (its connections are made
        /// again, and it counts Redis as down and its subscription as lost). Thawed (SIGCONT):
        /// shared pages again, without a restart.
        @Test func aFrozenRedisHoldsNoReadAndIsFollowedWhenItThaws() async throws {
            try await ReplicaHarness.with { harness in
                let a = try harness.start()
                let b = try harness.start()
                #expect(try await harness.wait { [a, b].allSatisfy { $0.server.redisReady && $0.server.replicaLinked } })
                harness.redis.pause()
                // The shared tier's lookup gives up after --redis-timeout (250 ms), then the origin.
                _ = try await Self.readTheOriginWithoutRedis(harness, a, b)
                // No traffic needed: every command connection asks ROLE each second, and the
                // subscriber hears its heartbeat or not.
                #expect(try await harness.wait(seconds: 10) { [a, b].allSatisfy { !$0.server.redisReady && !$0.server.replicaLinked } })
                harness.redis.resume()
                #expect(try await harness.wait(seconds: 10) { [a, b].allSatisfy { $0.server.redisReady && $0.server.replicaLinked } })
                try await Self.expectSharedPagesAgain(harness, a, b)
                a.server.shutdown()
                b.server.shutdown()
            }
        }

        /// Redis stopped: reads answer from the origin within their deadline; Redis started
        /// again: the shared tier serves again, without restarting the gateway.
        @Test func readsFailOpenWhileRedisIsDown() async throws {
            try await ReplicaHarness.with { harness in
                let a = try harness.start()
                let b = try harness.start()
                #expect(try await harness.wait { a.server.redisReady && b.server.redisReady })
                harness.redis.stop()
                // Redis refuses connections: no read waits for it.
                let first = try await Self.readTheOriginWithoutRedis(harness, a, b)
                #expect(first.header("Cache-Status") == "open-market-gateway; fwd=miss; stored")
                try harness.redis.start()
                #expect(try await harness.wait(seconds: 10) { a.server.redisReady && b.server.redisReady })
                try await Self.expectSharedPagesAgain(harness, a, b)
                a.server.shutdown()
                b.server.shutdown()
            }
        }
    }
}
