import DemoOrigin
import Foundation
import GatewayModels
import Testing
import TestSupport
@testable import Gateway

extension IntegrationTests {
    /// Writes behind the unchanged contract on v2 and v2b origins, counted request by request
    /// at the demo origin, and `/readyz`.
    @Suite struct GenerationWrites {
        static let vendor = DemoVendor.demo[0]
        static let json = ["Content-Type: application/json"]

        static func createJSON(password: String = vendor.secret) -> [UInt8] {
            Array("""
                {"title":"세대 테스트","description":"v2 쓰기 경로","price":1000,"currency":"KRW","stock":3,"discountedPrice":900,\
                "password":"\(password)","images":[{"data":"\(Data(IntegrationTests.WritePath.png).base64EncodedString())"}]}
                """.utf8)
        }

        @Test(arguments: [OriginGeneration.v2, .v2b])
        func createUpdateDeleteRoundTrip(_ generation: OriginGeneration) async throws {
            try await ReadPathHarness.with(generation: generation) { harness in
                let port = harness.port
                let created = try await offPool {
                    try RawHTTPClient(port: port).request("POST", "/v1/products", headers: Self.json, body: Self.createJSON())
                }
                #expect(created.status == 201)
                let body = try created.json()
                let id = try #require(body["id"] as? Int)
                #expect(created.header("Location") == "/v1/products/\(id)")
                #expect(body["discountedPrice"] as? Int == 900)
                #expect(Generations.vendor(body["vendor"]) == "1:Demo Market")
                #expect(harness.origin.counts.count("POST", "/api/products") == 1)
                let stored = try #require(harness.origin.item(id: Int64(id)))
                #expect(stored.title == "세대 테스트" && stored.descriptions == "v2 쓰기 경로")
                #expect(stored.discountedPrice == 900 && stored.vendorID == 1)

                // Only the sale price changes: the gateway reads the product from the origin
                // (not its cache) for the list price, then sends the discount amount.
                harness.origin.resetCounts()
                let patched = try await offPool {
                    try RawHTTPClient(port: port).request(
                        "PATCH", "/v1/products/\(id)", headers: Self.json, body: Array(#"{"password":"\#(Self.vendor.secret)","discountedPrice":700}"#.utf8))
                }
                #expect(patched.status == 200)
                #expect(try patched.json()["discountedPrice"] as? Int == 700)
                #expect(harness.origin.counts.count("GET", "/api/products/\(id)") == 1)
                #expect(harness.origin.counts.count("PATCH", "/api/products/\(id)") == 1)
                #expect(harness.origin.counts.total == 2)
                #expect(harness.origin.item(id: Int64(id))?.discountedPrice == 700)

                // Only the price changes: the sale price stays 700.
                let repriced = try await offPool {
                    try RawHTTPClient(port: port).request(
                        "PATCH", "/v1/products/\(id)", headers: Self.json, body: Array(#"{"password":"\#(Self.vendor.secret)","price":2000}"#.utf8))
                }
                #expect(repriced.status == 200)
                #expect(try repriced.json()["price"] as? Int == 2000)
                #expect(try repriced.json()["discountedPrice"] as? Int == 700)

                harness.origin.resetCounts()
                let deleted = try await offPool {
                    try RawHTTPClient(port: port).request(
                        "DELETE", "/v1/products/\(id)", headers: Self.json, body: Array(#"{"password":"\#(Self.vendor.secret)"}"#.utf8))
                }
                #expect(deleted.status == 200)
                #expect(try deleted.json()["id"] as? Int == id)
                #expect(harness.origin.item(id: Int64(id)) == nil)
                #expect(harness.origin.counts.total == 2)
                if generation == .v2 {
                    #expect(harness.origin.counts.route("POST", "/api/products/{id}/secret") == 1)
                    #expect(harness.origin.counts.route("DELETE", "/api/products/{id}/{product_secret}") == 1)
                } else {
                    #expect(harness.origin.counts.route("POST", "/api/products/{id}/archived") == 1)
                    #expect(harness.origin.counts.route("DELETE", "/api/products/{token}") == 1)
                }
                let gone = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products/\(id)") }
                #expect(gone.status == 404)
            }
        }

        @Test(arguments: [OriginGeneration.v2, .v2b])
        func aWrongSecretIs403AndAnotherVendorsIdentifierCanBeSent(_ generation: OriginGeneration) async throws {
            try await ReadPathHarness.with(generation: generation) { harness in
                let port = harness.port
                let (wrong, unknown, second) = try await offPool {
                    let client = try RawHTTPClient(port: port)
                    return (
                        try client.request("POST", "/v1/products", headers: Self.json, body: Self.createJSON(password: "not-the-secret")),
                        try client.request(
                            "DELETE", "/v1/products/1", headers: Self.json + ["Vendor-Identifier: 00000000-0000-0000-0000-000000000000"],
                            body: Array(#"{"password":"\#(Self.vendor.secret)"}"#.utf8)),
                        // Item 5 belongs to the second vendor.
                        try client.request(
                            "PATCH", "/v1/products/5", headers: Self.json + ["Vendor-Identifier: \(DemoVendor.demo[1].identifier)"],
                            body: Array(#"{"password":"\#(DemoVendor.demo[1].secret)","title":"다른 판매자"}"#.utf8))
                    )
                }
                #expect(wrong.status == 403)
                #expect(wrong.header("Content-Type") == "application/problem+json")
                #expect(try wrong.json()["detail"] as? String == "secret does not match the identifier")
                #expect(unknown.status == 403)
                #expect(try unknown.json()["detail"] as? String == "unknown identifier")
                #expect(second.status == 200)
                #expect(harness.origin.item(id: 5)?.title == "다른 판매자")
            }
        }

        @Test func updatesWithImagesAreRefusedOnV2() async throws {
            try await ReadPathHarness.with(generation: .v2) { harness in
                let port = harness.port
                let png = Data(IntegrationTests.WritePath.png).base64EncodedString()
                let refused = try await offPool {
                    try RawHTTPClient(port: port).request(
                        "PATCH", "/v1/products/1", headers: Self.json,
                        body: Array(#"{"password":"\#(Self.vendor.secret)","title":"x","images":[{"data":"\#(png)"}]}"#.utf8))
                }
                #expect(refused.status == 400)
                #expect(try refused.json()["errors"] as? [[String: String]] == [[
                    "field": "images", "message": "This origin (v2) takes no images on update: send the update without images.",
                ]])
                #expect(harness.origin.counts.total == 0)
            }
        }

        /// The read of the current prices times out: nothing was changed, and the answer says so.
        @Test func aPriceReadThatTimesOutChangesNothing() async throws {
            try await ReadPathHarness.with(
                generation: .v2b, demo: { $0.faults.latencyMs = 700 }, configure: { $0.origin.client.requestTimeout = .milliseconds(250) }
            ) { harness in
                let port = harness.port
                let answer = try await offPool {
                    try RawHTTPClient(port: port).request(
                        "PATCH", "/v1/products/1", headers: Self.json, body: Array(#"{"password":"\#(Self.vendor.secret)","discountedPrice":1}"#.utf8))
                }
                #expect(answer.status == 504)
                #expect(try answer.json()["detail"] as? String
                    == "The origin did not answer in time when asked for the product's prices; nothing was changed.")
                #expect(harness.origin.counts.count("GET", "/api/products/1") == 1)
                #expect(harness.origin.counts.count("PATCH", "/api/products/1") == 0)
            }
        }

        /// A create refused for its identifier, retried with the same key and the right one: a
        /// key is scoped by the credentials sent with it (the secret and the identifier), so the
        /// retry is another client's key and creates; it does not replay the stored refusal.
        @Test func theIdempotencyKeyIsScopedByTheIdentifier() async throws {
            try await ReadPathHarness.with(generation: .v2b, configure: { $0.origin.vendorIdentifier = nil }) { harness in
                let port = harness.port
                let (wrong, right) = try await offPool {
                    let client = try RawHTTPClient(port: port)
                    return (
                        try client.request(
                            "POST", "/v1/products", headers: Self.json + ["Idempotency-Key: k-1", "Vendor-Identifier: 00000000-0000-0000-0000-000000000000"],
                            body: Self.createJSON()),
                        try client.request(
                            "POST", "/v1/products", headers: Self.json + ["Idempotency-Key: k-1", "Vendor-Identifier: \(Self.vendor.identifier)"],
                            body: Self.createJSON())
                    )
                }
                #expect(wrong.status == 403)
                #expect(right.status == 201)
                #expect(right.header("Idempotent-Replayed") == nil)
                #expect(harness.origin.counts.count("POST", "/api/products") == 2)
            }
        }

        /// The origin refuses the very delete address it gave: that is the origin's fault (502),
        /// not the client's (403).
        @Test func aRefusedDeleteAddressIs502() async throws {
            try await ReadPathHarness.with(generation: .v2) { harness in
                harness.origin.setDeleteTokenOverride("0123abcd")
                let port = harness.port
                let answer = try await offPool {
                    try RawHTTPClient(port: port).request(
                        "DELETE", "/v1/products/1", headers: Self.json, body: Array(#"{"password":"\#(Self.vendor.secret)"}"#.utf8))
                }
                #expect(answer.status == 502)
                #expect(harness.origin.counts.total == 2)
                #expect(harness.origin.item(id: 1) != nil)
            }
        }

        @Test(arguments: [OriginGeneration.v2, .v2b])
        func anUnknownProductIs404(_ generation: OriginGeneration) async throws {
            try await ReadPathHarness.with(generation: generation) { harness in
                let port = harness.port
                let (update, delete) = try await offPool {
                    let client = try RawHTTPClient(port: port)
                    return (
                        // Only the sale price: the read of the current prices finds nothing.
                        try client.request(
                            "PATCH", "/v1/products/9999", headers: Self.json, body: Array(#"{"password":"\#(Self.vendor.secret)","discountedPrice":1}"#.utf8)),
                        try client.request(
                            "DELETE", "/v1/products/9999", headers: Self.json, body: Array(#"{"password":"\#(Self.vendor.secret)"}"#.utf8))
                    )
                }
                #expect(update.status == 404)
                #expect(try update.json()["detail"] as? String == "product not found")
                #expect(harness.origin.counts.count("PATCH", "/api/products/9999") == 0)
                #expect(delete.status == 404)
                #expect(harness.origin.counts.total == 2)
            }
        }

        @Test(arguments: [OriginGeneration.v2, .v2b])
        func aWriteWithoutAnyIdentifierIsRefusedBeforeTheOrigin(_ generation: OriginGeneration) async throws {
            try await ReadPathHarness.with(generation: generation, configure: { $0.origin.vendorIdentifier = nil }) { harness in
                let port = harness.port
                let (missing, both) = try await offPool {
                    let client = try RawHTTPClient(port: port)
                    return (
                        try client.request("POST", "/v1/products", headers: Self.json, body: Self.createJSON()),
                        try client.request("PATCH", "/v1/products/1", headers: Self.json, body: Array(#"{"password":"","price":-1}"#.utf8))
                    )
                }
                #expect(missing.status == 400)
                #expect(try missing.json()["errors"] as? [[String: String]] == [[
                    "field": "Vendor-Identifier",
                    "message": "is required by this origin (\(generation.rawValue)): send the Vendor-Identifier header, or start the gateway with --origin-vendor-identifier.",
                ]])
                // Every problem at once: the body's and the identifier's.
                let fields = try #require(try both.json()["errors"] as? [[String: String]]).compactMap { $0["field"] }
                #expect(fields.contains("Vendor-Identifier") && fields.contains("price") && fields.contains("password"))
                #expect(harness.origin.counts.total == 0)
            }
        }

        @Test(arguments: [
            (OriginGeneration.v2b, "https://evil.example/api/products/abc"), (.v2b, "/api/products/../../admin"), (.v2b, "/internal/x"),
            (.v2, "../../x"), (.v2, "a/b"), (.v2, "https://evil.example/"),
        ])
        func aDeleteAddressPointingElsewhereIsNotFollowed(_ generation: OriginGeneration, _ answer: String) async throws {
            try await ReadPathHarness.with(generation: generation) { harness in
                harness.origin.setDeleteTokenOverride(answer)
                let port = harness.port
                let refused = try await offPool {
                    try RawHTTPClient(port: port).request(
                        "DELETE", "/v1/products/1", headers: Self.json, body: Array(#"{"password":"\#(Self.vendor.secret)"}"#.utf8))
                }
                #expect(refused.status == 502)
                #expect(refused.header("Content-Type") == "application/problem+json")
                #expect(harness.origin.counts.total == 1, "only the request for the delete address")
                #expect(harness.origin.item(id: 1) != nil)
            }
        }

        @Test(arguments: OriginGeneration.allCases)
        func readinessFollowsTheOriginButStaysReady(_ generation: OriginGeneration) async throws {
            try await ReadPathHarness.with(generation: generation) { harness in
                let port = harness.port
                let up = try await offPool { try RawHTTPClient(port: port).request("GET", "/readyz") }
                #expect(up.status == 200)
                #expect(up.header("Cache-Control") == "no-store")
                #expect(try up.json()["status"] as? String == "ready")
                #expect(try up.json()["origin"] as? String == "up")
                let probePath = generation == .v1 ? "/items/1" : "/healthChecker"
                #expect(harness.origin.counts.count("GET", probePath) == 1)
                // A burst within the reuse window probes nothing more.
                let burst = try await offPool { try (0..<20).map { _ in try RawHTTPClient(port: port).request("GET", "/readyz").status } }
                #expect(burst == Array(repeating: 200, count: 20))
                #expect(harness.origin.counts.count("GET", probePath) == 1)

                harness.origin.stop()
                try await Task.sleep(for: Readiness.reuse + .milliseconds(100))
                // The stale result answers at once and starts a probe, which finds the origin down.
                _ = try await offPool { try RawHTTPClient(port: port).request("GET", "/readyz") }
                var down: RawHTTPClient.Response?
                for _ in 0..<100 {
                    let answer = try await offPool { try RawHTTPClient(port: port).request("GET", "/readyz") }
                    if try answer.json()["origin"] as? String == "down" { down = answer; break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                let stillReady = try #require(down)
                #expect(stillReady.status == 200, "an origin outage does not pull the replica out")
                #expect(try stillReady.json()["status"] as? String == "ready")
                try harness.origin.resume()
            }
        }

        @Test func readinessIs503WhileDraining() async throws {
            try await ReadPathHarness.with(generation: .v2b, demo: { $0.faults.latencyMs = 800 }) { harness in
                let port = harness.port
                let client = try RawHTTPClient(port: port)
                // The first /readyz waits for the first (slow) origin probe; the drain begins
                // meanwhile, so its answer is the draining one.
                try client.send("GET /readyz HTTP/1.1\r\nHost: t\r\n\r\n")
                try await Task.sleep(for: .milliseconds(200))
                let server = harness.server
                let shutdown = Task.detached { server.shutdown() }
                let ready = try await offPool { try client.readResponse() }
                await shutdown.value
                #expect(ready.status == 503)
                #expect(ready.header("Content-Type") == "application/problem+json")
                #expect(ready.header("Connection") == "close")
                #expect(ready.header("Retry-After") == "5")
                let body = try ready.json()
                #expect(body["status"] as? Int == 503)
                #expect(body["readiness"] as? String == "draining")
                #expect(body["origin"] as? String == "up")
            }
        }
    }
}
