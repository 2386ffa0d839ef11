import Foundation
import GatewayModels
import Testing
import TestSupport
@testable import Gateway
import GatewaySupport

extension IntegrationTests {
    /// Per-client budgets through a real gateway and the demo origin.
    @Suite struct RateLimits {
        /// `count` GETs of `target` in one write (pipelined), answered in the same pass of
        /// the connection's input, so their `RateLimit` values are exact.
        static func pipelined(_ port: Int, _ target: String, count: Int, headers: [String] = []) throws -> [RawHTTPClient.Response] {
            let client = try RawHTTPClient(port: port)
            defer { client.close() }
            let head = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers.map { $0 + "\r\n" }.joined() + "\r\n"
            try client.send(String(repeating: head, count: count))
            return try (0..<count).map { _ in try client.readResponse() }
        }

        static func get(_ port: Int, _ target: String, headers: [String] = []) throws -> RawHTTPClient.Response {
            try RawHTTPClient(port: port).request("GET", target, headers: headers)
        }

        /// Four reads at once over a 3/s budget: three pass with `r` counting down, the
        /// fourth gets 429 problem+json with `Retry-After`; a second later the budget is back.
        @Test func aBurstOverTheReadBudgetGets429AndRecovers() async throws {
            try await ReadPathHarness.with(configure: {
                $0.rateLimits.reads = RateRule(quota: 3, windowSeconds: 1)
                $0.rateLimits.trustedProxies = AddressRanges(parsing: "127.0.0.1")!
            }) { harness in
                let port = harness.port
                // Warmed by another client: the four below are cache hits, answered at once.
                let warm = try await offPool { try Self.get(port, "/v1/products/3", headers: ["X-Forwarded-For: 198.51.100.1"]) }
                #expect(warm.status == 200)
                let answers = try await offPool {
                    try Self.pipelined(port, "/v1/products/3", count: 4, headers: ["X-Forwarded-For: 198.51.100.2"])
                }
                #expect(answers.map(\.status) == [200, 200, 200, 429])
                #expect(answers.map { $0.header("RateLimit-Policy") } == Array(repeating: #""reads";q=3;w=1"#, count: 4))
                #expect(answers.map { $0.header("RateLimit") } == [#""reads";r=2;t=1"#, #""reads";r=1;t=1"#, #""reads";r=0;t=1"#, #""reads";r=0;t=1"#])
                #expect(answers[0].header("Cache-Status")?.hasPrefix("open-market-gateway; hit") == true)
                let refused = answers[3]
                #expect(refused.header("Retry-After") == "1")
                #expect(refused.header("Content-Type") == "application/problem+json")
                let problem = try refused.json()
                #expect(problem["type"] as? String == "urn:open-market-gateway:problem:rate-limited")
                #expect(problem["status"] as? Int == 429)
                #expect(problem["detail"] as? String == "This client has used its reads budget; retry after 1 s.")
                // Never limited, and no RateLimit fields: health, readiness, metrics.
                let free = try await offPool {
                    try ["/healthz", "/readyz", "/metrics"].map { try Self.get(port, $0, headers: ["X-Forwarded-For: 198.51.100.2"]) }
                }
                #expect(free.map(\.status) == [200, 200, 200])
                #expect(free.allSatisfy { $0.header("RateLimit") == nil && $0.header("RateLimit-Policy") == nil })
                let metrics = String(decoding: harness.metrics.render(), as: UTF8.self)
                #expect(metrics.contains(#"gateway_rate_limited_total{route="/v1/products/{id}",policy="reads"} 1"#))
                try await Task.sleep(for: .milliseconds(1100))
                let again = try await offPool { try Self.get(port, "/v1/products/3", headers: ["X-Forwarded-For: 198.51.100.2"]) }
                #expect(again.status == 200)
                #expect(again.header("RateLimit") == #""reads";r=2;t=1"#)
            }
        }

        /// One route table: a miss (fetched), a stored hit, the same read with an escaped path
        /// (which the stored answer leaves to the routed handler) and a stored hit again spend
        /// one reads budget each, in turn; an escaped write on the same path spends writes.
        @Test func storedHitsMissesAndEscapedPathsSpendOneBudget() async throws {
            try await ReadPathHarness.with(configure: {
                $0.rateLimits.reads = RateRule(quota: 3, windowSeconds: 60)
                $0.rateLimits.writes = RateRule(quota: 5, windowSeconds: 60)
            }) { harness in
                let port = harness.port
                let answers = try await offPool {
                    try ["/v1/products/6", "/v1/products/6", "/v1/product%73/6", "/v1/products/6"].map { try Self.get(port, $0) }
                }
                #expect(answers.map(\.status) == [200, 200, 200, 429])
                // Fetched, then hits (stored bytes, then the routed handler's answer from the cache).
                #expect(answers.map { $0.header("Cache-Status")?.split(separator: ";").dropFirst().first.map(String.init) } == [
                    " fwd=miss", " hit", " hit", nil,
                ])
                #expect(answers.map { $0.header("RateLimit") } == [#""reads";r=2;t=20"#, #""reads";r=1;t=40"#, #""reads";r=0;t=60"#, #""reads";r=0;t=60"#])
                let write = try await offPool { try RawHTTPClient(port: port).request("PUT", "/v1/%70roducts/6") }
                #expect(write.status == 405)
                #expect(write.header("RateLimit") == #""writes";r=4;t=12"#)
            }
        }

        /// Behind a trusted proxy each `X-Forwarded-For` client has its own budget, found from
        /// the right: an address the client wrote on the left does not make it another client.
        @Test func clientsBehindATrustedProxyHaveSeparateBudgets() async throws {
            try await ReadPathHarness.with(configure: {
                $0.rateLimits.reads = RateRule(quota: 2, windowSeconds: 60)
                $0.rateLimits.trustedProxies = AddressRanges(parsing: "127.0.0.0/8,10.0.0.0/8")!
            }) { harness in
                let port = harness.port
                let statuses = try await offPool {
                    try [
                        "198.51.100.7", "198.51.100.7", "203.0.113.66, 198.51.100.7", "198.51.100.8", "198.51.100.7, 10.0.0.3",
                    ].map { try Self.get(port, "/v1/products/4", headers: ["X-Forwarded-For: \($0)"]) }
                }
                #expect(statuses.map(\.status) == [200, 200, 429, 200, 429])
                #expect(statuses[3].header("RateLimit") == #""reads";r=1;t=30"#)
            }
        }

        /// A peer that is not a trusted proxy is the client, whatever `X-Forwarded-For` says.
        @Test func anUntrustedPeersForwardedForIsIgnored() async throws {
            try await ReadPathHarness.with(configure: {
                $0.rateLimits.reads = RateRule(quota: 2, windowSeconds: 60)
                $0.rateLimits.trustedProxies = AddressRanges(parsing: "10.0.0.0/8")!
            }) { harness in
                let port = harness.port
                // The last one also escapes its path: the router decodes it, and so does the limiter.
                let statuses = try await offPool {
                    try [("198.51.100.1", "/v1/products/5"), ("198.51.100.2", "/v1/products/5"), ("198.51.100.3", "/v1/%70roducts/5")].map {
                        try Self.get(port, $0.1, headers: ["X-Forwarded-For: \($0.0)"]).status
                    }
                }
                #expect(statuses == [200, 200, 429])
            }
        }

        /// `--rate-limit-key-header`: a trusted proxy names the client (many phones behind
        /// one carrier address); reads, writes and images are separate budgets, and a refused
        /// write never reaches the origin.
        @Test func aKeyHeaderNamesTheClientAndBudgetsAreSeparate() async throws {
            try await ReadPathHarness.with(configure: {
                $0.rateLimits.reads = RateRule(quota: 1, windowSeconds: 60)
                $0.rateLimits.writes = RateRule(quota: 1, windowSeconds: 60)
                $0.rateLimits.images = RateRule(quota: 5, windowSeconds: 60)
                $0.rateLimits.trustedProxies = AddressRanges(parsing: "127.0.0.1")!
                $0.rateLimits.keyHeader = "X-Client-Key"
            }) { harness in
                let port = harness.port
                let (reads, writes, image) = try await offPool {
                    let reads = try ["phone-a", "phone-a", "phone-b"].map {
                        try Self.get(port, "/v1/products/6", headers: ["X-Client-Key: \($0)", "X-Forwarded-For: 198.51.100.9"]).status
                    }
                    let writes = try (0..<2).map { _ in
                        try RawHTTPClient(port: port).request(
                            "POST", "/v1/products", headers: ["Content-Type: application/json", "X-Client-Key: phone-a"], body: Array("{}".utf8))
                    }
                    let image = try Self.get(port, "/v1/images/not-a-token", headers: ["X-Client-Key: phone-a"])
                    return (reads, writes, image)
                }
                #expect(reads == [200, 429, 200])
                #expect(writes.map(\.status) == [400, 429])
                #expect(writes[1].header("RateLimit-Policy") == #""writes";q=1;w=60"#)
                #expect(image.header("RateLimit") == #""images";r=4;t=12"#)
                #expect(harness.origin.counts.count("POST", "/item") == 0)
            }
        }
    }
}

extension IntegrationTests {
    /// Budgets shared across replicas through Redis.
    @Suite struct SharedRateLimits {
        /// Two requests through A, then B: B hears A's within one sync and allows only what
        /// is left of the one budget (4/m: two more), then refuses.
        @Test func twoReplicasShareOneBudget() async throws {
            try await ReplicaHarness.with { harness in
                let configure: (inout GatewayConfiguration) -> Void = { $0.rateLimits.reads = RateRule(quota: 4, windowSeconds: 60) }
                let a = try harness.start(configure)
                let b = try harness.start(configure)
                #expect(try await harness.wait { a.server.redisReady && b.server.redisReady && a.server.replicaLinked && b.server.replicaLinked })
                let first = try await offPool { try (0..<2).map { _ in try RawHTTPClient(port: a.port).request("GET", "/v1/products/2") } }
                #expect(first.map { $0.header("RateLimit") } == [#""reads";r=3;t=15"#, #""reads";r=2;t=30"#])
                // B has never seen this client: it learns of it from A's sync.
                let limiter = try #require(b.server.rateLimiter)
                #expect(try await harness.wait { limiter.clientCount(.reads) == 1 })
                let second = try await offPool { try (0..<3).map { _ in try RawHTTPClient(port: b.port).request("GET", "/v1/products/2") } }
                #expect(second.map(\.status) == [200, 200, 429])
                #expect(second[0].header("RateLimit") == #""reads";r=1;t=45"#)
                let metrics = String(decoding: b.routes.reads.metrics.render(), as: UTF8.self)
                #expect(metrics.contains("gateway_rate_limit_shared 1"))
                a.shutdown()
                b.shutdown()
            }
        }

        /// Redis down: each replica limits on its own, and says so in a metric.
        @Test func withoutRedisEachReplicaLimitsOnItsOwn() async throws {
            try await ReplicaHarness.with { harness in
                let a = try harness.start { $0.rateLimits.reads = RateRule(quota: 2, windowSeconds: 60) }
                #expect(try await harness.wait { a.server.redisReady })
                harness.redis.stop()
                let statuses = try await offPool { try (0..<3).map { _ in try RawHTTPClient(port: a.port).request("GET", "/v1/products/2").status } }
                #expect(statuses == [200, 200, 429])
                let metrics = { String(decoding: a.routes.reads.metrics.render(), as: UTF8.self) }
                #expect(try await harness.wait { metrics().contains("gateway_rate_limit_shared 0") })
                a.shutdown()
            }
        }
    }
}
