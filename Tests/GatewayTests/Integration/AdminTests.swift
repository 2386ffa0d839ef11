import DemoOrigin
import Foundation
@testable import Gateway
import GatewayModels
@testable import GatewayRuntime
@testable import Observability
import TestSupport
import Testing

extension IntegrationTests {
    /// The admin listener: bearer token, purge across replicas, cache figures, `/metrics`.
    @Suite struct Admin {
        static let token = "admin-test-token-0123456789"

        static func adminConfiguration(_ configuration: inout GatewayConfiguration) {
            configuration.admin.port = 0
            configuration.admin.token = token
        }

        static func call(
            _ port: Int, _ method: String, _ target: String, token: String? = Admin.token, body: String? = nil
        ) throws -> RawHTTPClient.Response {
            var headers = token.map { ["Authorization: Bearer \($0)"] } ?? []
            if body != nil { headers.append("Content-Type: application/json") }
            return try RawHTTPClient(port: port).request(method, target, headers: headers, body: Array((body ?? "").utf8))
        }

        /// A purge of product 3 through A's admin listener: A and B drop its detail and
        /// every list page (B by the message), Redis moves their versions on, so the next
        /// read through B misses both tiers. A wrong token first changes nothing.
        @Test func aProductPurgeReachesEveryReplica() async throws {
            try await ReplicaHarness.with { harness in
                let a = try harness.start(Self.adminConfiguration)
                let b = try harness.start()
                #expect(try await harness.wait { a.server.redisReady && b.server.redisReady && a.server.replicaLinked && b.server.replicaLinked })
                let adminPort = try #require(a.admin?.port)
                try await offPool {
                    for replica in [a, b] {
                        _ = try RawHTTPClient(port: replica.port).request("GET", "/v1/products/3")
                        _ = try RawHTTPClient(port: replica.port).request("GET", "/v1/products?page=1")
                    }
                }
                // Page 2's prefetch runs in the prefetch lane beside page 1's thumbnails
                // (slow under the thread sanitizer).
                #expect(try await harness.wait(seconds: 30) { a.routes.reads.cache.count == 3 && b.routes.reads.cache.count == 3 })
                let (wrong, missing) = try await offPool {
                    (try Self.call(adminPort, "POST", "/admin/purge", token: "not-the-token", body: #"{"products":[3]}"#),
                     try Self.call(adminPort, "POST", "/admin/purge", token: nil, body: #"{"products":[3]}"#))
                }
                for refused in [wrong, missing] {
                    #expect(refused.status == 401)
                    #expect(refused.header("WWW-Authenticate") == #"Bearer realm="open-market-gateway-admin""#)
                    #expect(try refused.json()["type"] as? String == "urn:open-market-gateway:problem:unauthorized")
                }
                #expect(a.routes.reads.cache.count == 3)
                #expect(b.routes.reads.cache.count == 3)
                let purged = try await offPool { try Self.call(adminPort, "POST", "/admin/purge", body: #"{"products":[3]}"#) }
                #expect(purged.status == 200)
                // The detail, page 1 and the page 2 prefetched after it.
                #expect(String(decoding: purged.body, as: UTF8.self) == #"{"dropped":{"pages":3,"images":0},"shared":"purged"}"#)
                #expect(try await harness.wait(seconds: 1) { b.routes.reads.cache.count == 0 })
                let (detail, list) = try await offPool {
                    (try RawHTTPClient(port: b.port).request("GET", "/v1/products/3"),
                     try RawHTTPClient(port: b.port).request("GET", "/v1/products?page=1"))
                }
                let missedBoth = "open-market-gateway-shared; fwd=miss; stored, open-market-gateway; fwd=miss; stored"
                #expect(detail.header("Cache-Status") == missedBoth)
                #expect(list.header("Cache-Status") == missedBoth)
                #expect(harness.origin.counts.count("GET", "/item/3") == 2)
                // A misses too: its own tier is empty (the shared tier has B's new fetch).
                let fromA = try await offPool { try RawHTTPClient(port: a.port).request("GET", "/v1/products/3") }
                #expect(fromA.header("Cache-Status")?.hasSuffix(", open-market-gateway; fwd=miss; stored") == true)
                a.shutdown()
                b.shutdown()
            }
        }

        /// `{"pages": "all"}` on a replica: every page of every replica misses both tiers
        /// after it (the shared tier's epoch moved on).
        @Test func aPurgeOfEveryPageEmptiesTheSharedTierToo() async throws {
            try await ReplicaHarness.with { harness in
                let a = try harness.start(Self.adminConfiguration)
                let b = try harness.start()
                #expect(try await harness.wait { a.server.redisReady && b.server.redisReady && a.server.replicaLinked && b.server.replicaLinked })
                let adminPort = try #require(a.admin?.port)
                _ = try await offPool { try RawHTTPClient(port: a.port).request("GET", "/v1/products/7") }
                let purged = try await offPool { try Self.call(adminPort, "POST", "/admin/purge", body: #"{"pages":"all"}"#) }
                #expect(String(decoding: purged.body, as: UTF8.self) == #"{"dropped":{"pages":1,"images":0},"shared":"purged"}"#)
                let after = try await offPool { try RawHTTPClient(port: b.port).request("GET", "/v1/products/7") }
                #expect(after.header("Cache-Status") == "open-market-gateway-shared; fwd=miss; stored, open-market-gateway; fwd=miss; stored")
                #expect(harness.origin.counts.count("GET", "/item/7") == 2)
                a.shutdown()
                b.shutdown()
            }
        }

        /// One process: `{"all": true}` drops pages and images from memory and disk; the
        /// answer counts them; `GET /admin/cache` gives every tier's figures; bad bodies get
        /// every field error at once; `/metrics` moves to the admin listener; the public port
        /// has no `/admin/…`.
        @Test func purgeAllCacheFiguresAndMetricsOnOneProcess() async throws {
            try await Self.withGateway(metricsOnAdmin: true) { harness, server in
                let adminPort = try #require(harness.admin?.port)
                let port = server.port
                let (image, page) = try await offPool {
                    let detail = try RawHTTPClient(port: port).request("GET", "/v1/products/1")
                    let url = try #require((try detail.json()["images"] as? [String])?.first)
                    return (try RawHTTPClient(port: port).request("GET", url), detail)
                }
                #expect(image.status == 200)
                #expect(page.status == 200)
                // The source's placeholder is written after the image's answer.
                #expect(try await poll { harness.routes.images.placeholderPreparations.inProgress == 0 })
                harness.routes.images.disk?.drain()
                let figures = try await offPool { try Self.call(adminPort, "GET", "/admin/cache") }
                #expect(figures.status == 200)
                #expect(figures.header("Cache-Control") == "no-store")
                let tiers = try figures.json()
                let pages = try #require(tiers["pages"] as? [String: Any])
                #expect(pages["entries"] as? Int == 1)
                #expect(pages["misses"] as? Int == 1)
                #expect(pages["hits"] as? Int == 0)
                #expect(pages["hitRatio"] as? Double == 0)
                #expect((pages["bytes"] as? Int ?? 0) > 0)
                #expect((tiers["imageMemory"] as? [String: Any])?["entries"] as? Int == 1)
                // The source as fetched, the variant made from it (metadata stripped) and the
                // source's placeholder record.
                #expect((tiers["imageDisk"] as? [String: Any])?["entries"] as? Int == 3)
                #expect(tiers["sharedPages"] == nil)
                let (all, invalid, publicAdmin, publicMetrics, adminMetrics) = try await offPool {
                    (try Self.call(adminPort, "POST", "/admin/purge", body: #"{"all":true}"#),
                     try Self.call(adminPort, "POST", "/admin/purge", body: #"{"all":false,"pages":"some","x":1}"#),
                     try Self.call(port, "POST", "/admin/purge", body: #"{"all":true}"#),
                     try RawHTTPClient(port: port).request("GET", "/metrics"),
                     try Self.call(adminPort, "GET", "/metrics"))
                }
                #expect(String(decoding: all.body, as: UTF8.self) == #"{"dropped":{"pages":1,"images":4},"shared":"off"}"#)
                #expect(harness.routes.images.memory.count == 0)
                #expect(harness.routes.images.placeholders.count == 0)
                #expect(harness.routes.images.disk?.count == 0)
                #expect(harness.routes.reads.cache.count == 0)
                #expect(invalid.status == 400)
                let errors = try #require(try invalid.json()["errors"] as? [[String: String]])
                #expect(errors.map { $0["field"] } == ["all", "pages", "x"])
                #expect(publicAdmin.status == 404)
                #expect(publicMetrics.status == 404)
                #expect(adminMetrics.status == 200)
                #expect(String(decoding: adminMetrics.body, as: UTF8.self).contains("gateway_http_requests_total"))
            }
        }

        /// One gateway with its admin listener in front of a demo origin, images on disk.
        static func withGateway(
            metricsOnAdmin: Bool, _ body: (ReplicaHarness.Replica, GatewayServer) async throws -> Void
        ) async throws {
            let origin = DemoOrigin(logger: .quiet("admin-origin"))
            let url = try origin.start()
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("admin-\(UUID().uuidString)").path
            var configuration = GatewayConfiguration.testing(origin: url)
            configuration.images.cacheDirectory = directory
            adminConfiguration(&configuration)
            configuration.admin.metricsOnAdmin = metricsOnAdmin
            let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
            let routes = try GatewayApplication.originRoutes(configuration: configuration, metrics: metrics)
            let server = GatewayServer(configuration: configuration, router: routes.router, logger: .quiet("admin-gateway"), metrics: metrics)
            try server.start()
            let admin = try GatewayApplication.adminServer(configuration: configuration, routes: routes, metrics: metrics, logger: .quiet("admin"))
            try admin?.start()
            let replica = ReplicaHarness.Replica(server: server, routes: routes, admin: admin, metrics: metrics)
            defer {
                replica.shutdown()
                origin.shutdown()
                try? FileManager.default.removeItem(atPath: directory)
            }
            try await body(replica, server)
        }

        /// `--admin-port` without a token is refused at start, saying what is missing.
        @Test func anAdminPortWithoutATokenIsRefused() async throws {
            try await ReadPathHarness.with { harness in
                var configuration = GatewayConfiguration.testing(origin: URL(string: "http://127.0.0.1:1")!)
                configuration.admin.port = 0
                let routes = try GatewayApplication.originRoutes(configuration: configuration, metrics: harness.metrics)
                #expect(throws: AdminConfigurationError.self) {
                    _ = try GatewayApplication.adminServer(configuration: configuration, routes: routes, metrics: harness.metrics, logger: .quiet("admin"))
                }
            }
        }
    }
}
