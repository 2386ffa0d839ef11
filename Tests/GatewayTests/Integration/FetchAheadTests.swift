import DemoOrigin
import Foundation
@testable import Gateway
import GatewayModels
import TestSupport
import Testing

extension IntegrationTests {
    /// What a list page fetched from the origin starts in the prefetch lane: its thumbnails'
    /// sources and placeholders, and (`--prefetch-details N`) its first details.
    @Suite struct FetchingAhead {
        /// The gateway paths of a list answer's thumbnails, in order.
        static func thumbnailPaths(_ response: RawHTTPClient.Response) throws -> [String] {
            let items = try #require(response.json()["items"] as? [[String: Any]])
            return items.flatMap { ($0["thumbnails"] as? [String]) ?? [] }
        }

        /// The origin URL a gateway image path's token seals.
        static func source(_ path: String, _ harness: ImageHarness) throws -> String {
            try #require(harness.images.signer.url(from: String(path.split(separator: "/").last!)))
        }

        static func prefetchLines(_ harness: ImageHarness) -> Set<String> {
            PrefetchLaneTests.prefetchLines(harness.images.metrics)
        }

        /// A list miss without `include` fetches every thumbnail's source once, in the
        /// background, and computes its placeholder; the app's thumbnail requests a moment later
        /// render from the disk tier's copy without asking the origin, and count as used.
        @Test func aListMissFetchesItsThumbnailsAhead() async throws {
            try await ImageHarness.with { harness in
                let list = try await harness.get(["/v1/products?page=1"])[0]
                #expect(list.status == 200)
                let paths = try Self.thumbnailPaths(list)
                #expect(paths.count == 42)
                try await harness.settle()
                let sources = try paths.map { try Self.source($0, harness) }
                for url in Set(sources) {
                    let path = try #require(URL(string: url)?.path)
                    #expect(harness.origin.counts.count("GET", path) == 1, "\(path)")
                    guard case .ready = harness.images.placeholder(for: url) else {
                        Issue.record("no placeholder for \(url)")
                        continue
                    }
                }
                let before = harness.origin.counts.total
                let thumbnails = try await harness.get(Array(paths.prefix(3)))
                #expect(thumbnails.map(\.status) == [200, 200, 200])
                #expect(thumbnails.map { $0.header("Cache-Status") } == Array(repeating: "open-market-gateway; fwd=miss; stored", count: 3))
                #expect(harness.origin.counts.total == before)
                let lines = Self.prefetchLines(harness)
                #expect(lines.contains(#"gateway_prefetches_total{kind="image",outcome="used"} 3"#))
                #expect(lines.contains(#"gateway_prefetches_total{kind="page",outcome="made"} 1"#))
                // Page 2, fetched after page 1's miss, fetched its thumbnails ahead too: every
                // source of both pages once.
                let page2 = try await harness.get(["/v1/products?page=2"])[0]
                #expect(page2.header("Cache-Status")?.hasPrefix("open-market-gateway; hit; ttl=") == true)
                let both = Set(try (paths + Self.thumbnailPaths(page2)).map { try Self.source($0, harness) })
                #expect(lines.contains("gateway_prefetches_total{kind=\"image\",outcome=\"made\"} \(both.count)"))
                #expect(harness.origin.counts.route("GET", "/thumbnails/{file}") == both.count)
            }
        }

        /// Only pages 1 to 5 without `q` fetch ahead (a v2b origin here, which searches).
        @Test(arguments: ["/v1/products?page=6&pageSize=10", "/v1/products?page=1&q=a&pageSize=10"])
        func fetchingAheadIsBounded(_ target: String) async throws {
            try await ImageHarness.with(generation: .v2b, configure: { configuration, _ in
                configuration.readPath.prefetchDetails = 3
            }) { harness in
                let answer = try await harness.get([target])[0]
                #expect(answer.status == 200)
                #expect(try !Self.thumbnailPaths(answer).isEmpty)
                try await harness.settle()
                #expect(harness.origin.counts.route("GET", "/thumbnails/{file}") == 0)
                #expect(harness.origin.counts.route("GET", "/api/products/{id}") == 0)
                #expect(harness.images.placeholders.count == 0)
                #expect(!Self.prefetchLines(harness).contains { $0.contains(#"kind="image""#) || $0.contains(#"kind="detail""#) })
            }
        }

        /// `--prefetch-details 3`: the first three products' details are fetched in the
        /// background (JSON only: their images are not), so a tap is a hit; the others are not.
        @Test func theFirstDetailsArePrefetched() async throws {
            try await ImageHarness.with(configure: { configuration, _ in
                configuration.readPath.prefetchDetails = 3
            }) { harness in
                let list = try await harness.get(["/v1/products?page=1"])[0]
                let ids = try #require((list.json()["items"] as? [[String: Any]])?.compactMap { $0["id"] as? Int })
                try await harness.settle()
                for (index, id) in ids.prefix(4).enumerated() {
                    #expect(harness.origin.counts.count("GET", "/item/\(id)") == (index < 3 ? 1 : 0), "product \(id)")
                }
                let taps = try await harness.get(["/v1/products/\(ids[0])", "/v1/products/\(ids[1])", "/v1/products/\(ids[3])"])
                #expect(taps.map(\.status) == [200, 200, 200])
                #expect(taps[0].header("Cache-Status")?.hasPrefix("open-market-gateway; hit; ttl=") == true)
                #expect(taps[1].header("Cache-Status")?.hasPrefix("open-market-gateway; hit; ttl=") == true)
                #expect(taps[2].header("Cache-Status") == "open-market-gateway; fwd=miss; stored")
                let lines = Self.prefetchLines(harness)
                #expect(lines.contains(#"gateway_prefetches_total{kind="detail",outcome="made"} 6"#))
                #expect(lines.contains(#"gateway_prefetches_total{kind="detail",outcome="used"} 2"#))
            }
        }

        /// For a list asked with placeholders the details are prefetched in that form, JSON
        /// only still: none of their images (`/images/…`, not the list's thumbnails) is fetched.
        @Test func prefetchedDetailsFetchNoImages() async throws {
            try await ImageHarness.with(configure: { configuration, _ in
                configuration.readPath.prefetchDetails = 3
            }) { harness in
                let list = try await harness.get(["/v1/products?page=1&include=placeholders"])[0]
                let ids = try #require((list.json()["items"] as? [[String: Any]])?.compactMap { $0["id"] as? Int })
                try await harness.settle()
                for id in ids.prefix(3) { #expect(harness.origin.counts.count("GET", "/item/\(id)") == 1, "product \(id)") }
                // Page 2's three (it is prefetched too) may still be on their way after the settle.
                #expect(try await poll { Self.prefetchLines(harness).contains(#"gateway_prefetches_total{kind="detail",outcome="made"} 6"#) })
                #expect(harness.origin.counts.route("GET", "/images/{file}") == 0)
            }
        }

        /// For ten seconds after an origin failure nothing is fetched ahead, even for a list
        /// the origin then answered (a client's read is never held back).
        @Test func nothingIsFetchedAheadWhileTheOriginFails() async throws {
            try await ImageHarness.with(configure: { configuration, _ in
                configuration.readPath.prefetchDetails = 3
            }) { harness in
                harness.images.lane.originFailed()
                let list = try await harness.get(["/v1/products?page=2"])[0]
                #expect(list.status == 200)
                try await harness.settle()
                #expect(harness.origin.counts.route("GET", "/thumbnails/{file}") == 0)
                #expect(harness.origin.counts.route("GET", "/item/{id}") == 0)
                #expect(harness.origin.counts.count("GET", "/items/2") == 1)
                // Page 2 reads origin page 3 to know whether a next page exists; page 3 would need 4.
                #expect(harness.origin.counts.count("GET", "/items/4") == 0, "no next page either")
                #expect(Self.prefetchLines(harness).contains(#"gateway_prefetches_total{kind="detail",outcome="skipped_origin_failing"} 3"#))
                // The next page is asked for after the answer is sent: counted a moment later.
                #expect(try await poll(for: .seconds(10)) {
                    Self.prefetchLines(harness).contains(#"gateway_prefetches_total{kind="page",outcome="skipped_origin_failing"} 1"#)
                })
            }
        }
    }
}

extension IntegrationTests {
    /// The demo origin's photo-sized pictures through the gateway (v1's page 2 starts with
    /// them): the list's placeholders are its thumbnails' sizes as shown (EXIF orientation
    /// applied), alpha kept; the full-size sources weigh 200 KB and more.
    @Suite struct DemoPhotoPlaceholders {
        @Test func theListsPhotosHaveTheirShownSizesAndAlpha() async throws {
            try await ImageHarness.with(configure: { configuration, _ in
                configuration.readPath.placeholderWait = .seconds(10)
            }) { harness in
                let list = try await harness.get(["/v1/products?page=2&include=placeholders"])[0]
                let items = try #require(list.json()["items"] as? [[String: Any]])
                var seen: [Int64: (Int, Int, [UInt8])] = [:]
                for item in items {
                    guard let id = (item["id"] as? Int).map(Int64.init), let photo = CatalogueSeed.photos[id] else { continue }
                    let placeholder = try #require((item["thumbnailPlaceholders"] as? [[String: Any]])?.first, "item \(id)")
                    let width = try #require(placeholder["width"] as? Int)
                    let height = try #require(placeholder["height"] as? Int)
                    let hash = try #require((placeholder["thumbHash"] as? String).flatMap { Data(base64Encoded: $0) })
                    #expect((width, height) == photo.thumbnailSize, "item \(id)")
                    seen[id] = (width, height, Array(hash))
                }
                #expect(Set(seen.keys) == [21, 22, 23, 24])
                // Orientation 6: stored 320 × 240, shown (and hashed) as a portrait.
                let portrait = try #require(seen[22])
                #expect((portrait.0, portrait.1) == (240, 320))
                #expect(ThumbHash.aspectRatio(of: portrait.2) < 1)
                // The transparent disc's corners stay transparent in its placeholder; a JPEG's are opaque.
                let disc = try ThumbHash.decode(try #require(seen[23]).2)
                #expect(disc.rgba[3] < 64)
                let landscape = try ThumbHash.decode(try #require(seen[21]).2)
                #expect(landscape.rgba[3] == 255)
                // The README's example (item 22's placeholders) is what the code gives.
                let readme = try String(contentsOf: ConfigurationDocumentTests.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
                let example = try #require(readme.components(separatedBy: "```json\n{\n \"id\": 22,").dropFirst().first?.components(separatedBy: "```").first)
                let documented = try #require(
                    try JSONSerialization.jsonObject(with: Data(("{\"id\": 22," + example).utf8)) as? [String: Any])
                let item22 = try #require(items.first { $0["id"] as? Int == 22 })
                let fields = { (value: Any?) -> [String] in
                    ((value as? [[String: Any]]) ?? []).map { "\($0["width"] ?? "-")×\($0["height"] ?? "-") \($0["thumbHash"] ?? "-")" }
                }
                #expect(fields(documented["thumbnailPlaceholders"]).count == 2)
                #expect(fields(documented["thumbnailPlaceholders"]) == fields(item22["thumbnailPlaceholders"]))
                let source = try await offPool {
                    try RawHTTPClient(port: harness.originURL.port!).request("GET", "/images/21-1.jpg")
                }
                #expect(source.header("Content-Type") == "image/jpeg")
                #expect(source.body.count >= 200_000)
            }
        }
    }
}
