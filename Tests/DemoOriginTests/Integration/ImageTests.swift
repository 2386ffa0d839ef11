@testable import DemoOrigin
import Foundation
import TestSupport
import Testing

extension DemoOriginIntegrationTests {
    /// Images as an object store serves them.
    @Suite struct Images {
        @Test func servesGeneratedPNGsWithObjectStoreHeaders() async throws {
            try await OriginHarness.with { _, port in
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let image = try client.request("GET", "/images/3-1.png")
                    let expected = ImageRenderer.png(itemID: 3, number: 1, side: 64)
                    #expect(image.status == 200)
                    #expect(image.body == expected)
                    #expect(Array(image.body.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
                    #expect(image.header("Content-Type") == "image/png")
                    #expect(image.header("Content-Length") == "12420")
                    #expect(image.header("ETag") == ImageStore.etag(expected))
                    #expect(image.header("ETag")?.count == 18)
                    #expect(image.header("Last-Modified") == "Sun, 24 Jan 2021 21:26:03 GMT")
                    #expect(image.header("Vary") == nil)
                    let thumbnail = try client.request("GET", "/thumbnails/3-1.png")
                    #expect(thumbnail.body == ImageRenderer.png(itemID: 3, number: 1, side: 32))
                    #expect(thumbnail.header("Content-Length") == "3172")
                    #expect(try client.request("GET", "/images/2-3.png").body == ImageRenderer.png(itemID: 2, number: 3, side: 64))
                }
            }
        }

        @Test func answers304ForAMatchingValidator() async throws {
            try await OriginHarness.with { _, port in
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let etag = try #require(try client.request("GET", "/images/1-2.png").header("ETag"))
                    for header in ["If-None-Match: \(etag)", "If-None-Match: \"other\", W/\(etag)", "If-None-Match: *", "If-Modified-Since: Sun, 24 Jan 2021 21:26:03 GMT"] {
                        let cached = try client.request("GET", "/images/1-2.png", headers: [header])
                        #expect(cached.status == 304, "\(header)")
                        #expect(cached.body.isEmpty)
                        #expect(cached.header("ETag") == etag)
                        #expect(cached.header("Last-Modified") == "Sun, 24 Jan 2021 21:26:03 GMT")
                    }
                    for header in ["If-None-Match: \"other\"", "If-Modified-Since: Sun, 24 Jan 2021 21:26:02 GMT",
                                   "If-None-Match: \"other\"\r\nIf-Modified-Since: Sun, 24 Jan 2021 21:26:03 GMT"] {
                        let fresh = try client.request("GET", "/images/1-2.png", headers: [header])
                        #expect(fresh.status == 200, "\(header)")
                        #expect(fresh.body.count == 12420)
                    }
                    let head = try client.request("HEAD", "/images/1-2.png")
                    #expect(head.status == 200)
                    #expect(head.header("Content-Length") == "12420")
                    #expect(head.body.isEmpty)
                    #expect(try client.request("GET", "/images/1-2.png").status == 200)
                }
            }
        }

        @Test func unknownImagesAre404() async throws {
            try await OriginHarness.with { _, port in
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    for path in ["/images/3-2.png", "/images/3-1.jpg", "/images/3-0.png", "/images/999-1.png", "/thumbnails/3.png", "/images/03-1.png", "/images/3-1.png.png"] {
                        let response = try client.request("GET", path)
                        #expect(response.status == 404, "\(path)")
                        #expect(response.text == #"{"error":true,"reason":"Not Found"}"#)
                    }
                }
            }
        }
    }
}
