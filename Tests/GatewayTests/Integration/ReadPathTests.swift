import BodyCompression
import DemoOrigin
import Foundation
import Testing
import TestSupport
@testable import Gateway

extension IntegrationTests {
    /// `GET /v1/products` and `/v1/products/{id}` through a real gateway and the demo
    /// origin, which counts every request it gets.
    @Suite struct ReadPath {
        @Test func scrollingFetchesEachPageOnceThenServesHits() async throws {
            try await ReadPathHarness.with { harness in
                let port = harness.port
                let responses = try await offPool { () -> [[RawHTTPClient.Response]] in
                    let client = try RawHTTPClient(port: port)
                    return try (1...8).map { page in
                        try (0..<2).map { _ in try client.request("GET", "/v1/products?page=\(page)") }
                    }
                }
                for (index, pair) in responses.enumerated() {
                    let page = index + 1
                    #expect(pair[0].status == 200)
                    // Page 1 is a miss; later pages were prefetched (a hit) or are being
                    // prefetched (the request joins that fetch).
                    let first = pair[0].header("Cache-Status") ?? ""
                    if page == 1 {
                        #expect(first == "open-market-gateway; fwd=miss; stored")
                    } else {
                        #expect(first == "open-market-gateway; fwd=miss; stored" || first.hasPrefix("open-market-gateway; hit; ttl="))
                    }
                    #expect(pair[1].header("Cache-Status")?.hasPrefix("open-market-gateway; hit; ttl=") == true)
                    let sameBody = pair[0].body == pair[1].body
                    #expect(sameBody)
                    #expect(pair[0].header("ETag") == pair[1].header("ETag"))
                    #expect(pair[1].header("Vary") == "Accept-Encoding, Accept-Language")
                    #expect(harness.origin.counts.count("GET", "/items/\(page)") == 1)
                    let json = try pair[0].json()
                    #expect(json["page"] as? Int == page)
                    #expect((json["items"] as? [Any])?.count == [20, 20, 20, 20, 20, 20, 7, 0][index])
                    #expect(json["hasNextPage"] as? Bool == (page < 7))
                }
                let first = try #require((try responses[0][0].json()["items"] as? [[String: Any]])?.first)
                #expect(first["title"] as? String == "MacBook Pro")
                #expect((first["display"] as? [String: Any])?["price"] as? String == "USD 1,690.00")
                #expect((first["display"] as? [String: Any])?["stock"] as? String == "품절")
            }
        }

        @Test func gzipAndIdentityCarryTheSameJSONAndBothRevalidate() async throws {
            try await ReadPathHarness.with { harness in
                let port = harness.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let identity = try client.request("GET", "/v1/products/3")
                    let gzipped = try client.request("GET", "/v1/products/3", headers: ["Accept-Encoding: gzip"])
                    #expect(gzipped.header("Content-Encoding") == nil, "a 455-byte detail stays identity")
                    let list = try client.request("GET", "/v1/products?page=2")
                    let listGzip = try client.request("GET", "/v1/products?page=2", headers: ["Accept-Encoding: gzip"])
                    #expect(listGzip.header("Content-Encoding") == "gzip")
                    let sameJSON = try Gzip.decompress(listGzip.body, maxBytes: 1 << 20) == list.body
                    #expect(sameJSON)
                    let identityTag = try #require(list.header("ETag"))
                    let gzipTag = try #require(listGzip.header("ETag"))
                    #expect(gzipTag == String(identityTag.dropLast()) + "-gzip\"")
                    for tag in [identityTag, gzipTag, "W/" + identityTag] {
                        let revalidated = try client.request("GET", "/v1/products?page=2", headers: ["If-None-Match: \(tag)", "Accept-Encoding: gzip"])
                        #expect(revalidated.status == 304)
                        #expect(revalidated.body.isEmpty)
                        #expect(revalidated.header("ETag") == gzipTag)
                    }
                    let changed = try client.request("GET", "/v1/products?page=2", headers: ["If-None-Match: \"stale\""])
                    #expect(changed.status == 200)
                    #expect(identity.status == 200)
                    #expect(try identity.json()["title"] as? String == "Mac mini")
                }
                #expect(harness.origin.counts.count("GET", "/items/2") == 1)
            }
        }

        @Test func theResolvedLocaleKeysTheCacheNotTheRawHeader() async throws {
            try await ReadPathHarness.with { harness in
                let port = harness.port
                let stocks = try await offPool { () -> [String?] in
                    let client = try RawHTTPClient(port: port)
                    return try ["ko-KR", "en-US,en;q=0.9", "fr-FR", "en", "de;q=1, ko;q=0.5", "xx-\(UUID().uuidString)"].map { language in
                        let response = try client.request("GET", "/v1/products/1", headers: ["Accept-Language: \(language)"])
                        return (try response.json()["display"] as? [String: Any])?["stock"] as? String
                    }
                }
                #expect(stocks == ["품절", "Sold out", "품절", "Sold out", "품절", "품절"])
                #expect(harness.origin.counts.count("GET", "/item/1") == 2)
            }
        }

        @Test func concurrentMissesForOneKeySendOneOriginRequest() async throws {
            try await ReadPathHarness.with { harness in
                harness.origin.setFaults(DemoFaults(latencyMs: 300))
                let port = harness.port
                let statuses = try await offPool { () -> [Int] in
                    let clients = try (0..<100).map { _ in try RawHTTPClient(port: port) }
                    for client in clients { try client.send("GET /v1/products?page=3 HTTP/1.1\r\nHost: x\r\n\r\n") }
                    return try clients.map { try $0.readResponse().status }
                }
                #expect(statuses == Array(repeating: 200, count: 100))
                #expect(harness.origin.counts.count("GET", "/items/3") == 1)
            }
        }

        @Test func aStoppedOriginStillGetsStalePagesAndUncachedOnesA502() async throws {
            try await ReadPathHarness.with(configure: {
                $0.readPath.listTimeToLive = .milliseconds(100)
                $0.readPath.cache.staleWhileRevalidate = .zero
                // No breaker: the first page's prefetches meet the stopped origin too, and
                // would open it at a moment this test does not control (OriginBreaker tests it).
                $0.origin.breaker.failures = 0
                $0.origin.breaker.ratio = 2
            }) { harness in
                let port = harness.port
                let first = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products?page=1") }
                harness.origin.stop()
                try await Task.sleep(for: .milliseconds(150))
                let (stale, uncached) = try await offPool { () -> (RawHTTPClient.Response, RawHTTPClient.Response) in
                    let client = try RawHTTPClient(port: port)
                    return (try client.request("GET", "/v1/products?page=1"), try client.request("GET", "/v1/products?page=5"))
                }
                #expect(stale.status == 200)
                let sameBody = stale.body == first.body
                #expect(sameBody)
                #expect(stale.header("Cache-Status") == "open-market-gateway; hit; fwd=stale; detail=origin-unreachable")
                #expect(uncached.status == 502)
                #expect(uncached.header("Content-Type") == "application/problem+json")
                #expect(uncached.header("Cache-Status") == "open-market-gateway; fwd=miss")
                _ = try harness.origin.resume()
                // Page 5 backs off after its failure (0.5 to 1 s): then it is fetched.
                let held = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products?page=5") }
                #expect(held.status == 502 && held.header("Retry-After") == "1")
                try await Task.sleep(for: .milliseconds(1100))
                let recovered = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products?page=5") }
                #expect(recovered.status == 200)
            }
        }

        @Test func stalePagesAreServedWhileOneRefreshRuns() async throws {
            try await ReadPathHarness.with(configure: {
                $0.readPath.listTimeToLive = .milliseconds(100)
                $0.readPath.cache.staleWhileRevalidate = .seconds(60)
            }) { harness in
                let port = harness.port
                _ = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products?page=4") }
                try await Task.sleep(for: .milliseconds(150))
                let stale = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products?page=4") }
                #expect(stale.header("Cache-Status") == "open-market-gateway; hit; fwd=stale; detail=revalidating")
                for _ in 0..<300 where harness.origin.counts.count("GET", "/items/4") < 2 {
                    try await Task.sleep(for: .milliseconds(10))
                }
                #expect(harness.origin.counts.count("GET", "/items/4") == 2)
            }
        }

        @Test func aSlowOriginTimesOutAs504AndDoesNotStallTheLoop() async throws {
            try await ReadPathHarness.with(threads: 1, configure: { $0.origin.client.requestTimeout = .milliseconds(500) }) { harness in
                harness.origin.setFaults(DemoFaults(latencyMs: 3000))
                let port = harness.port
                let (health, slow) = try await offPool { () -> (RawHTTPClient.Response, RawHTTPClient.Response) in
                    let slowClient = try RawHTTPClient(port: port)
                    try slowClient.send("GET /v1/products?page=5 HTTP/1.1\r\nHost: x\r\n\r\n")
                    // Same loop, while the origin request waits: answered at once.
                    let health = try RawHTTPClient(port: port).request("GET", "/healthz")
                    return (health, try slowClient.readResponse())
                }
                #expect(health.status == 200)
                #expect(slow.status == 504)
                #expect(try slow.json()["detail"] as? String == "The origin did not answer in time.")
            }
        }

        @Test func unknownProductsAre404AndRememberedBriefly() async throws {
            try await ReadPathHarness.with { harness in
                let port = harness.port
                let (first, second) = try await offPool { () -> (RawHTTPClient.Response, RawHTTPClient.Response) in
                    let client = try RawHTTPClient(port: port)
                    return (try client.request("GET", "/v1/products/99999"), try client.request("GET", "/v1/products/99999"))
                }
                #expect(first.status == 404)
                #expect(first.header("Content-Type") == "application/problem+json")
                #expect(second.status == 404)
                #expect(second.header("Cache-Status")?.hasPrefix("open-market-gateway; hit") == true)
                #expect(harness.origin.counts.count("GET", "/item/99999") == 1)
            }
        }

        @Test func invalidPagesAndIdsNeverReachTheOrigin() async throws {
            try await ReadPathHarness.with { harness in
                let port = harness.port
                let responses = try await offPool { () -> [RawHTTPClient.Response] in
                    let client = try RawHTTPClient(port: port)
                    return try ["/v1/products?page=0", "/v1/products?page=-1", "/v1/products?page=abc", "/v1/products?page=10001",
                        "/v1/products?page=%2B1", "/v1/products/abc", "/v1/products/0", "/v1/products/+5"].map { try client.request("GET", $0) }
                }
                #expect(responses.map(\.status) == Array(repeating: 400, count: 8))
                #expect(try responses[0].json()["errors"] as? [[String: String]] == [["field": "page", "message": "must be a whole number from 1 to 10000."]])
                #expect(try responses[5].json()["errors"] as? [[String: String]] == [["field": "id", "message": "must be a positive whole number."]])
                #expect(harness.origin.counts.total == 0)
            }
        }

        @Test func theNextPageIsPrefetchedAfterAMiss() async throws {
            try await ReadPathHarness.with { harness in
                let port = harness.port
                _ = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products?page=2") }
                #expect(try await harness.wait { harness.reads.cache.lookup(ReadPathHarness.listKey(3), now: .now) != nil })
                #expect(harness.origin.counts.count("GET", "/items/3") == 1)
                let next = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products?page=3") }
                #expect(next.header("Cache-Status")?.hasPrefix("open-market-gateway; hit; ttl=") == true)
                #expect(harness.origin.counts.count("GET", "/items/3") == 1)
                // Page 3's prefetch read origin page 4 ahead, for its hasNextPage; the hit on
                // page 3 prefetches nothing more.
                #expect(harness.origin.counts.count("GET", "/items/4") == 1)
                #expect(harness.origin.counts.count("GET", "/items/5") == 0, "a hit prefetches nothing")
            }
        }

        @Test func hasNextPageIsExactFromTheFirstAnswer() async throws {
            try await ReadPathHarness.with { harness in
                let originPort = try #require(harness.origin.port)
                // Leave exactly 120 items: page 6 is full and page 7 is empty.
                try await offPool {
                    let client = try RawHTTPClient(port: originPort)
                    for id in 121...127 {
                        let deleted = try client.request(
                            "DELETE", "/item/\(id)", headers: ["Content-Type: application/json"], body: Array(#"{"password":"password"}"#.utf8))
                        #expect(deleted.status == 200)
                    }
                }
                let port = harness.port
                let six = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products?page=6") }
                #expect(six.header("Cache-Status") == "open-market-gateway; fwd=miss; stored")
                #expect((try six.json()["items"] as? [Any])?.count == 20)
                // The gateway read origin page 7 ahead: it is empty, so page 6 is the last.
                #expect(try six.json()["hasNextPage"] as? Bool == false)
                #expect(harness.origin.counts.count("GET", "/items/6") == 1)
                #expect(harness.origin.counts.count("GET", "/items/7") == 1)
                let five = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products?page=5") }
                #expect(try five.json()["hasNextPage"] as? Bool == true)
                // Origin page 6 was kept from the read before.
                #expect(harness.origin.counts.count("GET", "/items/6") == 1)
            }
        }

        @Test func cacheEventsAreCounted() async throws {
            try await ReadPathHarness.with { harness in
                let port = harness.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    for _ in 0..<3 { _ = try client.request("GET", "/v1/products/1") }
                }
                let lines = Set(String(decoding: harness.metrics.render(), as: UTF8.self).split(separator: "\n").map(String.init))
                #expect(lines.contains(#"gateway_cache_events_total{cache="page",event="miss"} 1"#))
                #expect(lines.contains(#"gateway_cache_events_total{cache="page",event="hit"} 2"#))
                #expect(lines.contains(#"gateway_origin_requests_total{outcome="200"} 1"#))
            }
        }
    }
}
