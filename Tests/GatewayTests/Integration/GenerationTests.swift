import DemoOrigin
import Foundation
@testable import Gateway
import GatewayModels
@testable import GatewayRuntime
@testable import HTTPInterface
@testable import Observability
@testable import Routing
import TestSupport
import Testing

extension IntegrationTests {
    /// The same contract in front of every origin generation: a real gateway and the demo
    /// origin running v1, v2 or v2b, which counts every request it gets.
    @Suite struct Generations {
        /// Ids of the seeded catalogue (1…127) in the order the origin lists them: v1
        /// ascending, v2/v2b newest first.
        static func listed(_ generation: OriginGeneration) -> [Int] {
            generation == .v1 ? Array(1...127) : Array((1...127).reversed())
        }

        /// A contract `vendor` as `id:name` (`1:null` when the name is unknown), or `null`.
        static func vendor(_ value: Any?) -> String {
            guard let vendor = value as? [String: Any] else { return value is NSNull ? "null" : "absent" }
            return "\((vendor["id"] as? Int).map(String.init) ?? "?"):\(vendor["name"] as? String ?? (vendor["name"] is NSNull ? "null" : "?"))"
        }

        static func ids(_ response: RawHTTPClient.Response) throws -> [Int] {
            try #require(try response.json()["items"] as? [[String: Any]]).compactMap { $0["id"] as? Int }
        }

        @Test(arguments: OriginGeneration.allCases)
        func listAndDetail(_ generation: OriginGeneration) async throws {
            try await ReadPathHarness.with(generation: generation) { harness in
                let port = harness.port
                let (list, again) = try await offPool {
                    let client = try RawHTTPClient(port: port)
                    return (try client.request("GET", "/v1/products"), try client.request("GET", "/v1/products?page=1&pageSize=20"))
                }
                #expect(list.status == 200)
                #expect(try Self.ids(list) == Array(Self.listed(generation).prefix(20)))
                #expect(try list.json()["hasNextPage"] as? Bool == true)
                #expect(again.header("Cache-Status")?.hasPrefix("open-market-gateway; hit; ttl=") == true, "the default page size is the same key")
                let first = try #require((try list.json()["items"] as? [[String: Any]])?.first)
                let id = try #require(first["id"] as? Int)
                let item = try #require(harness.origin.item(id: Int64(id)))
                let vendor = try #require(DemoVendor.demo.first { $0.id == item.vendorID })
                switch generation {
                case .v1:
                    #expect(first["vendor"] is NSNull)
                    #expect(harness.origin.counts.count("GET", "/items/1") == 1)
                    #expect(harness.origin.counts.count("GET", "/items/2") == 1, "read ahead for hasNextPage")
                case .v2:
                    // v2 list items name only the vendor's id.
                    #expect(Generations.vendor(first["vendor"]) == "\(vendor.id):null")
                case .v2b:
                    #expect(Generations.vendor(first["vendor"]) == "\(vendor.id):\(vendor.name)")
                }
                if generation != .v1 {
                    // Page 1, then page 2 prefetched after the miss.
                    _ = try await harness.wait { harness.origin.counts.count("GET", "/api/products") >= 2 }
                    #expect(harness.origin.counts.count("GET", "/api/products") == 2)
                }
                let detail = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products/\(id)") }
                #expect(detail.status == 200)
                let body = try detail.json()
                #expect(body["title"] as? String == item.title)
                #expect(body["description"] as? String == item.descriptions)
                let images = try #require(body["images"] as? [String])
                let thumbnails = try #require(body["imageThumbnails"] as? [Any])
                #expect(images.count == item.images.count)
                #expect(thumbnails.count == images.count)
                if generation == .v1 {
                    #expect(thumbnails.allSatisfy { $0 is NSNull })
                    #expect(body["vendor"] is NSNull)
                } else {
                    #expect(thumbnails.allSatisfy { ($0 as? String)?.hasPrefix("/v1/images/") == true })
                    #expect(Generations.vendor(body["vendor"]) == "\(vendor.id):\(vendor.name)")
                    // Each thumbnail URL serves the origin's thumbnail bytes.
                    let thumbnail = try #require(thumbnails.first as? String)
                    let image = try await offPool { try RawHTTPClient(port: port).request("GET", thumbnail) }
                    #expect(image.status == 200)
                    #expect(image.header("Content-Type") == "image/png" || image.header("Content-Type") == "image/jpeg")
                }
            }
        }

        @Test(arguments: OriginGeneration.allCases)
        func pageSizes(_ generation: OriginGeneration) async throws {
            try await ReadPathHarness.with(generation: generation) { harness in
                let port = harness.port
                let (small, last, beyond) = try await offPool {
                    let client = try RawHTTPClient(port: port)
                    return (
                        try client.request("GET", "/v1/products?page=3&pageSize=7"),
                        try client.request("GET", "/v1/products?page=3&pageSize=50"),
                        try client.request("GET", "/v1/products?page=4&pageSize=50")
                    )
                }
                let order = Self.listed(generation)
                #expect(try Self.ids(small) == Array(order[14..<21]))
                #expect(try small.json()["page"] as? Int == 3)
                #expect(try small.json()["hasNextPage"] as? Bool == true)
                #expect(try Self.ids(last) == Array(order[100..<127]))
                #expect(try last.json()["hasNextPage"] as? Bool == false)
                #expect(try Self.ids(beyond) == [])
                #expect(try beyond.json()["hasNextPage"] as? Bool == false)
                if generation == .v1 {
                    // Items 15…21 and the one after them live on origin pages 1 and 2; page 3
                    // of 50 needs pages 6 and 7 (7 is short, so nothing is read beyond it);
                    // page 4 of 50 starts on page 8, which is empty.
                    #expect(harness.origin.counts.count("GET", "/items/1") == 1)
                    #expect(harness.origin.counts.count("GET", "/items/2") == 1)
                    #expect(harness.origin.counts.count("GET", "/items/6") == 1)
                    #expect(harness.origin.counts.count("GET", "/items/7") == 1)
                    #expect(harness.origin.counts.count("GET", "/items/8") == 1)
                    #expect(harness.origin.counts.count("GET", "/items/9") == 0)
                } else {
                    // One request per page, and page 4 of 7 prefetched after the miss on page 3.
                    _ = try await harness.wait { harness.origin.counts.count("GET", "/api/products") >= 4 }
                    #expect(harness.origin.counts.count("GET", "/api/products") == 4)
                }
            }
        }

        /// A v2b origin that answers rows `[0, limit)` (one live capture did): the gateway
        /// still shows page 3 as page 3.
        @Test func theV2bPagingQuirkIsUndone() async throws {
            try await ReadPathHarness.with(generation: .v2b, demo: { $0.pagingQuirk = true }) { harness in
                let port = harness.port
                let third = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products?page=3") }
                #expect(try Self.ids(third) == Array(Self.listed(.v2b)[40..<60]))
                #expect(try third.json()["hasNextPage"] as? Bool == true)
                // Last pages too, where the quirk answers rows [0, total).
                let (last, big) = try await offPool {
                    let client = try RawHTTPClient(port: port)
                    return (try client.request("GET", "/v1/products?page=7"), try client.request("GET", "/v1/products?page=3&pageSize=50"))
                }
                #expect(try Self.ids(last) == Array(Self.listed(.v2b)[120..<127]))
                #expect(try last.json()["hasNextPage"] as? Bool == false)
                #expect(try Self.ids(big) == Array(Self.listed(.v2b)[100..<127]))
            }
        }

        /// A v1 origin whose page 2 fails: page 1 (20 items) only needed page 2 to learn
        /// whether more follow, so it is still served, with `hasNextPage: true` and a short
        /// freshness; page 2 itself is 502.
        @Test func aFailedReadAheadStillServesThePage() async throws {
            var router = Router()
            router.add(.get, "/items/{page}", .immediate { _, context in
                switch context.parameters["page"] {
                case "1":
                    let items = (1...20).map {
                        #"{"id":\#($0),"title":"t\#($0)","price":100,"currency":"KRW","stock":1,"thumbnails":[],"registration_date":1611523563.5}"#
                    }
                    return .json(Array(#"{"page":1,"items":[\#(items.joined(separator: ","))]}"#.utf8))
                case "2": return GatewayResponse(status: 500)
                default: return .json(Array(#"{"page":3,"items":[]}"#.utf8))
                }
            })
            let origin = GatewayServer(configuration: .loopback(), router: router, logger: .quiet("origin"))
            try origin.start()
            defer { origin.shutdown() }
            var configuration = GatewayConfiguration.testing(origin: try #require(URL(string: "http://127.0.0.1:\(origin.port)")))
            let cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("gw-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: cacheDirectory) }
            configuration.images.cacheDirectory = cacheDirectory.path
            let routes = try GatewayApplication.originRoutes(configuration: configuration, metrics: GatewayMetrics(presets: GatewayMetrics.gatewayPresets))
            let gateway = GatewayServer(configuration: configuration, router: routes.router, logger: .quiet("gateway"))
            try gateway.start()
            defer { gateway.shutdown() }
            let port = gateway.port
            let (first, second) = try await offPool {
                let client = try RawHTTPClient(port: port)
                return (try client.request("GET", "/v1/products"), try client.request("GET", "/v1/products?page=2"))
            }
            #expect(first.status == 200)
            #expect(try Self.ids(first) == Array(1...20))
            #expect(try first.json()["hasNextPage"] as? Bool == true)
            // Seconds of freshness left, of 5 (not the list TTL's 30).
            #expect(["public, max-age=4", "public, max-age=5"].contains(first.header("Cache-Control") ?? ""))
            #expect(second.status == 502)
        }

        @Test func searchOnV2b() async throws {
            try await ReadPathHarness.with(generation: .v2b) { harness in
                let port = harness.port
                let (found, same) = try await offPool {
                    let client = try RawHTTPClient(port: port)
                    return (try client.request("GET", "/v1/products?q=iphone"), try client.request("GET", "/v1/products?q=%20iphone+"))
                }
                #expect(found.status == 200)
                let expected = harness.origin.items.filter {
                    $0.title.lowercased().contains("iphone") || $0.descriptions.lowercased().contains("iphone")
                }.map { Int($0.id) }.sorted(by: >)
                #expect(!expected.isEmpty)
                #expect(try Self.ids(found) == Array(expected.prefix(20)))
                #expect(same.header("Cache-Status")?.hasPrefix("open-market-gateway; hit; ttl=") == true, "the normalised search is the key")
                #expect(harness.origin.counts.count("GET", "/api/products") == 1)
                // Korean text and query delimiters reach the origin as one search value.
                let (korean, ampersand) = try await offPool {
                    let client = try RawHTTPClient(port: port)
                    return (
                        try client.request("GET", "/v1/products?q=%ED%82%A4%EB%B3%B4%EB%93%9C&pageSize=100"),
                        try client.request("GET", "/v1/products?q=a%26page_no%3D2")
                    )
                }
                let keyboards = harness.origin.items.filter { $0.title.contains("키보드") || $0.descriptions.contains("키보드") }
                    .map { Int($0.id) }.sorted(by: >)
                #expect(!keyboards.isEmpty)
                #expect(try Self.ids(korean) == keyboards)
                #expect(try Self.ids(ampersand) == [])
            }
        }

        @Test(arguments: [OriginGeneration.v1, .v2])
        func searchIsRefusedWhereTheOriginCannotSearch(_ generation: OriginGeneration) async throws {
            try await ReadPathHarness.with(generation: generation) { harness in
                let port = harness.port
                let refused = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products?q=iphone") }
                #expect(refused.status == 501)
                #expect(refused.header("Content-Type") == "application/problem+json")
                #expect(try refused.json()["detail"] as? String == "Search is not supported by this origin.")
                #expect(harness.origin.counts.total == 0)
            }
        }

        @Test func invalidListParametersAreAllReportedAndNothingIsSent() async throws {
            try await ReadPathHarness.with(generation: .v2b) { harness in
                let port = harness.port
                let (all, tooBig, tooLong) = try await offPool {
                    let client = try RawHTTPClient(port: port)
                    return (
                        try client.request("GET", "/v1/products?page=x&pageSize=0&q=%20%20"),
                        try client.request("GET", "/v1/products?pageSize=101"),
                        try client.request("GET", "/v1/products?q=" + String(repeating: "a", count: 101))
                    )
                }
                #expect(all.status == 400)
                let fields = try #require(try all.json()["errors"] as? [[String: String]]).compactMap { $0["field"] }
                #expect(fields == ["page", "pageSize", "q"])
                #expect(tooBig.status == 400)
                #expect(try tooBig.json()["errors"] as? [[String: String]] == [["field": "pageSize", "message": "must be a whole number from 1 to 100."]])
                #expect(tooLong.status == 400)
                #expect(harness.origin.counts.total == 0)
            }
        }
    }
}
