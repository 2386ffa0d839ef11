import DemoOrigin
import Foundation
@testable import Gateway
import TestSupport
import Testing

extension IntegrationTests {
    /// `--origin-retry-max`: a failing origin is asked once per backoff step for a key, not at
    /// every read; stored pages are served meanwhile, misses answered at once; a success ends
    /// the backoff. On a real gateway in front of the demo origin and its faults.
    @Suite struct OriginBackoff {
        private func get(_ port: Int, _ target: String) async throws -> RawHTTPClient.Response {
            try await offPool {
                let client = try RawHTTPClient(port: port)
                defer { client.close() }
                return try client.request("GET", target)
            }
        }

        @Test func aFailingKeyIsAskedOncePerStepAndMissesAreAnsweredAtOnce() async throws {
            try await ReadPathHarness.with(configure: {
                $0.origin.retryFirst = .seconds(1)
                $0.origin.retryMax = .seconds(30)
            }) { harness in
                let port = harness.port
                harness.origin.setFaults(DemoFaults(errorRate: 1))
                let first = try await get(port, "/v1/products/7")
                #expect(first.status == 502)
                #expect(first.header("Retry-After") == nil)
                // Within the backoff: the same problem at once, with Retry-After; nothing sent.
                var held: [RawHTTPClient.Response] = []
                for _ in 0..<20 { held.append(try await get(port, "/v1/products/7")) }
                #expect(held.allSatisfy { $0.status == 502 && $0.header("Retry-After") == "1" })
                #expect(try held.first?.json()["detail"] as? String == "The origin answered 500.")
                #expect(harness.origin.counts.count("GET", "/item/7") == 1)
                // Another key is its own: fetched, and backing off in turn.
                #expect(try await get(port, "/v1/products/8").status == 502)
                #expect(harness.origin.counts.count("GET", "/item/8") == 1)
                #expect(harness.metrics.cacheEventCount("miss", cache: "page") == 22)
                let rendered = String(decoding: harness.metrics.render(), as: UTF8.self)
                #expect(rendered.contains(#"gateway_origin_backoff_total{outcome="held"} 20"#))
                #expect(rendered.contains(#"gateway_origin_backoff_total{outcome="started"} 2"#))

                // After the step (0.5 to 1 s): one more request, which fails and doubles it.
                try await Task.sleep(for: .milliseconds(1050))
                #expect(try await get(port, "/v1/products/7").status == 502)
                #expect(try await get(port, "/v1/products/7").status == 502)
                #expect(harness.origin.counts.count("GET", "/item/7") == 2)

                // Recovered: once the step ends, the next read fetches, and the key is forgotten.
                harness.origin.setFaults(DemoFaults())
                try await Task.sleep(for: .milliseconds(2050))
                #expect(try await get(port, "/v1/products/7").status == 200)
                #expect(harness.origin.counts.count("GET", "/item/7") == 3)
                #expect(harness.reads.backoff.blocked(PageCacheKey(route: .detail, number: 7, locale: ""), now: .now) == nil)
            }
        }

        @Test func storedPagesAreServedWhileTheirKeyBacksOff() async throws {
            try await ReadPathHarness.with(configure: {
                $0.readPath.listTimeToLive = .milliseconds(100)
                $0.readPath.cache.staleWhileRevalidate = .seconds(60)
                $0.origin.retryFirst = .seconds(5)
            }) { harness in
                let port = harness.port
                #expect(try await get(port, "/v1/products?page=3").status == 200)
                #expect(harness.origin.counts.count("GET", "/items/3") == 1)
                harness.origin.setFaults(DemoFaults(errorRate: 1))
                try await Task.sleep(for: .milliseconds(150))
                // Stale: served, and one refresh is tried, which fails.
                let stale = try await get(port, "/v1/products?page=3")
                #expect(stale.status == 200)
                #expect(stale.header("Cache-Status") == "open-market-gateway; hit; fwd=stale; detail=revalidating")
                #expect(try await poll(for: .seconds(3)) { harness.origin.counts.count("GET", "/items/3") == 2 })
                // Every read after it is served stale without asking the origin again.
                for _ in 0..<30 { #expect(try await get(port, "/v1/products?page=3").status == 200) }
                try await Task.sleep(for: .milliseconds(100))
                #expect(harness.origin.counts.count("GET", "/items/3") == 2)
                // Another locale of the same origin page backs off with it.
                let english = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products?page=3", headers: ["Accept-Language: en-US"]) }
                #expect(english.status == 502 && english.header("Retry-After") != nil)
                #expect(harness.origin.counts.count("GET", "/items/3") == 2)
            }
        }
    }
}
