import DemoOrigin
import Foundation
@testable import Gateway
import GatewayModels
import TestSupport
import Testing

extension IntegrationTests {
    /// Placeholders through the replicas' Redis: one record per source URL.
    @Suite struct ReplicaPlaceholders {
        /// Replica A renders a thumbnail, which computes its placeholder and stores it in Redis;
        /// replica B (its own memory and disk tier, empty) answers a detail asked with
        /// placeholders with the same value, without fetching that source.
        @Test func aPlaceholderComputedByOneReplicaServesTheOthers() async throws {
            try await ReplicaHarness.with { harness in
                let a = try harness.start()
                let b = try harness.start { $0.readPath.placeholderWait = .seconds(10) }
                #expect(try await harness.wait { a.server.redisReady && b.server.redisReady })
                let url = "http://127.0.0.1:\(harness.originURL.port!)/thumbnails/3-1.png"
                let image = try await offPool {
                    try RawHTTPClient(port: a.server.port).request("GET", "/v1/images/" + a.routes.images.signer.token(for: url))
                }
                #expect(image.status == 200)
                #expect(try await harness.wait { a.routes.images.placeholder(for: url) != .unknown })
                guard case .ready(let computed) = a.routes.images.placeholder(for: url) else {
                    Issue.record("no placeholder on A")
                    return
                }
                // Stored under the pages' prefix and purge epoch: `<prefix>ph:0:<digest>`.
                #expect(try await harness.wait { (try harness.redis.cli("--scan", "--pattern", "omg:*:ph:0:*")).split(separator: "\n").count == 1 })
                #expect(b.routes.images.placeholder(for: url) == .unknown)
                let detail = try await offPool { try RawHTTPClient(port: b.server.port).request("GET", "/v1/products/3?include=placeholders") }
                #expect(detail.status == 200)
                let placeholder = try #require((try detail.json()["thumbnailPlaceholders"] as? [[String: Any]])?.first)
                #expect(placeholder["width"] as? Int == computed.width)
                #expect(placeholder["height"] as? Int == computed.height)
                #expect(placeholder["thumbHash"] as? String == Data(computed.thumbHash).base64EncodedString())
                #expect(b.routes.images.placeholder(for: url) == .ready(computed))
                // Only A fetched that source.
                #expect(harness.origin.counts.count("GET", "/thumbnails/3-1.png") == 1)
            }
        }
    }
}
