import CVips
import DemoOrigin
import Foundation
import GatewayModels
import Testing
import TestPhotos
import TestSupport
@testable import Gateway

/// Images sized for phones: real photos at the demo origin (a phone JPEG with an EXIF
/// orientation and GPS tags, made by TestPhotos), fetched through the gateway at allowed
/// widths, in the format `Accept` allows, metadata stripped, each variant rendered once.
extension IntegrationTests.Images {
    /// A 1200 × 900 phone photo stored turned (orientation 6: shown 900 × 1200), at the origin.
    static func phonePhoto(_ harness: ImageHarness) throws -> (url: String, path: String) {
        let photo = try TestPhotos.phoneJPEG(width: 1200, height: 900, orientation: 6)
        let item = harness.origin.addItem(photos: [(photo, .jpeg)])
        let url = harness.originImage("/images/\(item.id)-1.jpg")
        return (url, harness.path(for: url))
    }

    static func loader(_ contentType: String?) -> Int32 {
        switch contentType {
        case "image/webp": Int32(CVIPS_WEBP)
        case "image/avif": Int32(CVIPS_HEIF)
        case "image/png": Int32(CVIPS_PNG)
        default: Int32(CVIPS_JPEG)
        }
    }

    /// The list thumbnail of the README: `w=320` as WebP, turned upright, 320 × 427, with no
    /// trace of the photo's EXIF, GPS or XMP; the second request is a memory hit and the
    /// origin saw one request.
    @Test func aListThumbnailAt320AsWebP() async throws {
        try await ImageHarness.with { harness in
            let (url, path) = try Self.phonePhoto(harness)
            let accept = "Accept: image/webp,image/*;q=0.8"
            let responses = try await harness.get([path + "?w=320", path + "?w=320"], headers: [accept])
            let (first, second) = (responses[0], responses[1])
            #expect(first.status == 200)
            #expect(first.header("Content-Type") == "image/webp")
            #expect(first.header("Vary") == "Accept")
            #expect(first.header("Cache-Status") == "open-market-gateway; fwd=miss; stored")
            #expect(first.header("Cache-Control") == "public, max-age=31536000, immutable")
            let decoded = try TestPhotos.decode(first.body, loader: Int32(CVIPS_WEBP))
            #expect((decoded.width, decoded.height) == (320, 427))
            let leaks = [TestPhotos.secret, Array("Exif".utf8), Array("EXIF".utf8), Array("xap/1.0".utf8)].filter { first.body.contains($0) }
            #expect(leaks.isEmpty)
            #expect(second.status == 200)
            #expect(second.header("Cache-Status") == "open-market-gateway; hit; detail=memory")
            #expect(second.header("Vary") == "Accept")
            #expect(second.header("ETag") == first.header("ETag"))
            #expect(second.body == first.body)
            let origin = try #require(URL(string: url)?.path)
            #expect(harness.origin.counts.count("GET", origin) == 1)
        }
    }

    /// AVIF when named, else WebP when named, else the source's format; wildcards never
    /// count. Every variant comes from one fetch of the source (kept by the disk tier).
    @Test func theFormatFollowsAccept() async throws {
        try await ImageHarness.with { harness in
            let (url, path) = try Self.phonePhoto(harness)
            let cases: [(String?, String)] = [
                ("image/avif,image/webp,*/*;q=0.8", "image/avif"), ("image/webp;q=0.9, image/avif;q=0.5", "image/webp"),
                ("image/webp", "image/webp"), ("image/*", "image/jpeg"), (nil, "image/jpeg"), ("image/avif;q=0, image/webp;q=0", "image/jpeg"),
            ]
            var etags: [String: String] = [:]
            for (accept, expected) in cases {
                let response = try await harness.get([path + "?w=160"], headers: accept.map { ["Accept: \($0)"] } ?? [])[0]
                #expect(response.status == 200, "\(accept ?? "no Accept")")
                #expect(response.header("Content-Type") == expected, "\(accept ?? "no Accept")")
                #expect(response.header("Vary") == "Accept")
                let decoded = try TestPhotos.decode(response.body, loader: Self.loader(expected))
                #expect((decoded.width, decoded.height) == (160, 213), "\(accept ?? "no Accept")")
                if let tag = response.header("ETag") {
                    #expect(etags[expected].map { $0 == tag } ?? true, "one variant per format")
                    etags[expected] = tag
                }
            }
            #expect(Set(etags.values).count == 3)
            let origin = try #require(URL(string: url)?.path)
            #expect(harness.origin.counts.count("GET", origin) == 1)
        }
    }

    /// `--image-formats webp` turns AVIF off.
    @Test func avifCanBeTurnedOff() async throws {
        try await ImageHarness.with(configure: { configuration, _ in configuration.images.formats = [.webp] }) { harness in
            let (_, path) = try Self.phonePhoto(harness)
            let response = try await harness.get([path + "?w=160"], headers: ["Accept: image/avif,image/webp"])[0]
            #expect(response.header("Content-Type") == "image/webp")
        }
    }

    /// Never upscaled: the demo's 64 × 64 PNG asked at 320, or with no width, stays 64 × 64.
    @Test(arguments: ["?w=320", ""])
    func smallImagesAreNotUpscaled(_ query: String) async throws {
        try await ImageHarness.with { harness in
            let path = harness.path(for: harness.originImage("/images/7-1.png")) + query
            let response = try await harness.get([path])[0]
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "image/png")
            let decoded = try TestPhotos.decode(response.body, loader: Int32(CVIPS_PNG))
            #expect((decoded.width, decoded.height) == (64, 64))
        }
    }

    /// A width outside the allowed set is 400 problem+json naming `w`, on the first request
    /// and once the token is known (the stored-answer path declines it too).
    @Test(arguments: ["?w=300", "?w=abc", "?w=", "?w=1280000", "?w=%33%32%30x"])
    func disallowedWidthsAreRefused(_ query: String) async throws {
        try await ImageHarness.with { harness in
            let path = harness.path(for: harness.originImage("/images/7-1.png"))
            let responses = try await harness.get([path + query, path, path + query])
            for response in [responses[0], responses[2]] {
                #expect(response.status == 400)
                #expect(response.header("Content-Type") == "application/problem+json")
                let errors = try #require(try response.json()["errors"] as? [[String: Any]])
                #expect(errors.count == 1)
                #expect(errors.first?["field"] as? String == "w")
                #expect(errors.first?["message"] as? String == "must be one of 160, 320, 480, 640, 960, 1280.")
            }
            #expect(responses[1].status == 200)
        }
    }

    /// A PNG whose header claims 20000 × 20000 pixels (400 MP; its bytes are a few dozen) is
    /// refused from its header with 502, nothing decoded and nothing cached.
    @Test func aDecompressionBombIsRefused() async throws {
        try await ImageHarness.with { harness in
            let item = harness.origin.addItem(photos: [(TestPhotos.pngBomb(width: 20_000, height: 20_000), .png)])
            let path = harness.path(for: harness.originImage("/images/\(item.id)-1.png"))
            let responses = try await harness.get([path + "?w=320", path + "?w=320"])
            for response in responses {
                #expect(response.status == 502)
                #expect(try response.json()["detail"] as? String == "The image has more than 40000000 pixels.")
                #expect(response.header("Cache-Status") == "open-market-gateway; fwd=miss")
            }
            #expect(harness.images.memory.count == 0)
        }
    }
}

extension IntegrationTests.Images {
    /// The image URLs in a product hide the origin: their tokens decode to no host, port or
    /// path of it, and they serve the image.
    @Test func productImageTokensRevealNoHost() async throws {
        try await ImageHarness.with { harness in
            let port = harness.port
            let detail = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products/3") }
            let images = try #require(try detail.json()["images"] as? [String])
            let path = try #require(images.first)
            let token = String(path.dropFirst("/v1/images/".count))
            #expect(!token.contains("."))
            let bytes = try #require(Array(token.utf8).withUnsafeBufferPointer { ImageToken.sealed($0) })
            let origin = try #require(harness.originURL.port)
            for part in ["127.0.0.1", String(origin), "/images/", "3-1.png", "http"] {
                #expect(!bytes.contains(Array(part.utf8)), "\(part)")
            }
            #expect(try await harness.get([path])[0].status == 200)
        }
    }

    /// Tokens handed out before tokens were sealed keep working until `--legacy-image-tokens
    /// false`; then they are 403 like any forged token.
    @Test(arguments: [true, false])
    func legacyTokensFollowTheirSwitch(_ accepted: Bool) async throws {
        try await ImageHarness.with(configure: { configuration, _ in configuration.images.legacyTokens = accepted }) { harness in
            let legacy = harness.images.signer.legacyToken(for: harness.originImage("/images/3-1.png"))
            let response = try await harness.get(["/v1/images/" + legacy])[0]
            #expect(response.status == (accepted ? 200 : 403))
        }
    }
}
