import DemoOrigin
import Foundation
@testable import Gateway
import GatewayModels
import ImageProcessing
import TestSupport
import Testing

extension IntegrationTests {
    /// Placeholders (a source's size and ThumbHash), computed on an image worker when a source
    /// is first fetched, kept in memory and beside the source on disk.
    @Suite struct ImagePlaceholdersComputed {
        /// What the placeholder of `source` must be: its preview's ThumbHash, computed here.
        static func expected(_ source: [UInt8]) throws -> ImagePlaceholder {
            let preview = try ImageProcessor.preview(source, maxPixels: 40_000_000, timeLimit: .seconds(5))
            return try ImagePlaceholder(
                sourceWidth: preview.sourceWidth, sourceHeight: preview.sourceHeight, previewWidth: preview.width,
                previewHeight: preview.height, rgba: preview.rgba)
        }

        @Test func aFetchedSourceGetsItsPlaceholderWhichSurvivesARestart() async throws {
            try await ImageHarness.with { harness in
                let url = harness.originImage("/thumbnails/3-1.png")
                #expect(harness.images.placeholder(for: url) == .unknown)
                let image = try await offPool { try RawHTTPClient(port: harness.port).request("GET", harness.path(for: url)) }
                #expect(image.status == 200)
                try await harness.settle()
                // Fetched once, for the render; the placeholder came from the same bytes.
                #expect(harness.origin.counts.count("GET", "/thumbnails/3-1.png") == 1)
                let source = try await offPool { try RawHTTPClient(port: harness.originURL.port!).request("GET", "/thumbnails/3-1.png") }
                let expected = try Self.expected(source.body)
                #expect(harness.images.placeholder(for: url) == .ready(expected))
                #expect(expected.thumbHash.count >= 5)
                // The size is the PNG's own (its IHDR), read here without libvips.
                let ihdr = Array(source.body[16..<24])
                #expect(expected.width == ihdr[0..<4].reduce(0) { $0 << 8 | Int($1) })
                #expect(expected.height == ihdr[4..<8].reduce(0) { $0 << 8 | Int($1) })
                let fetches = harness.origin.counts.count("GET", "/thumbnails/3-1.png")
                try await harness.afterRestart { _, images in
                    #expect(images.placeholder(for: url) == .unknown)
                    // From the disk tier's record: no origin is needed.
                    let lookup = await withCheckedContinuation { continuation in
                        images.preparePlaceholder(url, origin: nil, requestID: "t") { continuation.resume(returning: $0) }
                    }
                    #expect(lookup == .ready(expected))
                    #expect(images.placeholder(for: url) == .ready(expected))
                }
                #expect(harness.origin.counts.count("GET", "/thumbnails/3-1.png") == fetches)
            }
        }

        /// A source that cannot be had is remembered as failed (not tried again for every read)
        /// for a minute, then tried again.
        @Test func failuresAreRememberedForAWhile() async throws {
            try await ImageHarness.with { harness in
                let url = harness.originImage("/thumbnails/nothing-here.png")
                let lookup = await withCheckedContinuation { continuation in
                    harness.images.preparePlaceholder(url, origin: nil, requestID: "t") { continuation.resume(returning: $0) }
                }
                #expect(lookup == .failed)
                #expect(harness.images.placeholder(for: url) == .failed)
                let store = ImagePlaceholders()
                let now = ContinuousClock.now
                store.storeFailure(for: url, now: now)
                #expect(store.lookup(url, now: now + .seconds(59)) == .failed)
                #expect(store.lookup(url, now: now + .seconds(61)) == .unknown)
                // A placeholder is never replaced by a later failure.
                let placeholder = ImagePlaceholder(width: 4, height: 3, thumbHash: [1, 2, 3, 4, 5])
                store.store(placeholder, for: url)
                store.storeFailure(for: url, now: now)
                #expect(store.lookup(url) == .ready(placeholder))
            }
        }
    }
}
