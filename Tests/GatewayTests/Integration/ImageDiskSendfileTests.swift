import Foundation
import Testing
import TestSupport
@testable import Gateway

extension IntegrationTests.Images {
    /// With the memory tier off, disk-tier hits are sent from the file kept open since it was
    /// verified: the same bytes, ETag and 304 as ever, no upstream request.
    @Test func diskHitsAreSentFromTheOpenFile() async throws {
        try await ImageHarness.with(configure: { configuration, _ in configuration.images.memoryBytes = 0 }) { harness in
            let path = harness.path(for: harness.originImage("/images/4-1.png"))
            let first = try await harness.get([path])[0]
            #expect(first.header("Cache-Status") == "open-market-gateway; fwd=miss; stored")
            let disk = try #require(harness.images.disk)
            disk.drain()
            // The origin's bytes (the source of any other variant) and the rendered image.
            #expect(disk.openFiles.count == 2)
            let responses = try await harness.get([path, path])
            for response in responses {
                #expect(response.status == 200)
                #expect(response.header("Cache-Status") == "open-market-gateway; hit; detail=disk")
                #expect(response.header("Content-Type") == "image/png")
                #expect(response.header("Cache-Control") == "public, max-age=31536000, immutable")
                #expect(response.header("ETag") == first.header("ETag"))
                #expect(response.header("Content-Length") == String(first.body.count))
                #expect(response.body == first.body)
            }
            let tag = try #require(first.header("ETag"))
            let notModified = try await harness.get([path], headers: ["If-None-Match: \(tag)"])[0]
            #expect(notModified.status == 304)
            #expect(notModified.body.isEmpty)
            let head = try await offPool { try RawHTTPClient(port: harness.port).request("HEAD", path) }
            #expect(head.header("Content-Length") == String(first.body.count))
            #expect(head.body.isEmpty)
            #expect(harness.origin.counts.count("GET", "/images/4-1.png") == 1)
        }
    }

    /// A large file goes out over several `sendfile` calls (the socket takes it in parts),
    /// whole and in order, and a pipelined request behind it is answered after it.
    @Test func aLargeDiskImageIsSentWholeAndInOrder() async throws {
        try await ImageHarness.with(configure: { configuration, _ in configuration.images.memoryBytes = 0 }) { harness in
            let url = harness.originImage("/images/not-fetched-large.png")
            var body: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            var generator = SystemRandomNumberGenerator()
            body += (0..<(8 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let disk = try #require(harness.images.disk)
            disk.write(
                CachedPage(status: 200, contentType: "image/png", identity: body, gzip: nil, storedAt: .now, timeToLive: .seconds(60)),
                for: ImageVariant(url: url, width: 0, choice: .original))
            disk.drain()
            let path = harness.path(for: url)
            // The first request verifies the token (the ordinary route: the body is read from
            // the open file on the disk queue, not hashed again), the next ones are stored
            // answers sent from the open file.
            let responses = try await offPool { () -> [RawHTTPClient.Response] in
                let client = try RawHTTPClient(port: harness.port, timeout: 30)
                let routed = try client.request("GET", path)
                try client.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                return [try client.readResponse(), try client.readResponse(), routed]
            }
            #expect(responses[2].header("Cache-Status") == "open-market-gateway; hit; detail=disk")
            #expect(responses[2].body == body)
            #expect(responses[0].header("Cache-Status") == "open-market-gateway; hit; detail=disk")
            #expect(responses[0].body.count == body.count)
            #expect(responses[0].body == body)
            #expect(responses[1].text == #"{"status":"ok"}"#)
            #expect(harness.origin.counts.count("GET", "/images/not-fetched-large.png") == 0)
        }
    }
}
