import CVips
import DemoOrigin
import Foundation
import GatewayModels
import ImageProcessing
import Testing
import TestPhotos
import TestSupport
@testable import Gateway

/// Uploads that fit the origin: what a phone sends (2 MB photos with EXIF and GPS, HEIC) is
/// rendered again by the gateway, and the demo origin, which keeps uploads byte for byte,
/// shows what arrived.
extension IntegrationTests.WritePath {
    /// A create body (JSON) with `images` as base64.
    static func createJSON(images: [(name: String, bytes: [UInt8])]) -> [UInt8] {
        let list = images.map { #"{"filename":"\#($0.name)","data":"\#(Data($0.bytes).base64EncodedString())"}"# }.joined(separator: ",")
        return Array(
            #"{"title":"사진 상품","description":"설명입니다","price":10,"currency":"USD","stock":1,"password":"pw1234","images":[\#(list)]}"#.utf8)
    }

    static func post(_ body: [UInt8], port: Int) async throws -> RawHTTPClient.Response {
        try await offPool {
            try RawHTTPClient(port: port, timeout: 60).request("POST", "/v1/products", headers: ["Content-Type: application/json"], body: body)
        }
    }

    /// The bytes the origin keeps for the new product's images.
    static func storedImages(_ harness: ReadPathHarness, _ created: RawHTTPClient.Response) throws -> [[UInt8]] {
        let id = try #require(try created.json()["id"] as? Int)
        let item = try #require(harness.origin.item(id: Int64(id)))
        return item.images.compactMap { image in
            if case .uploaded(let bytes, _, _) = image { return bytes }
            return nil
        }
    }

    /// Two 2 MB phone photos (5.5 MB of JSON: past `--max-body-bytes`, within
    /// `--max-upload-bytes`) arrive at the origin as JPEGs under its 300 KB limit, upright and
    /// without their EXIF, GPS or XMP.
    @Test func phonePhotosArriveUnderTheOriginLimitWithoutMetadata() async throws {
        try await ReadPathHarness.with { harness in
            let photos = try (1...2).map { seed in
                try TestPhotos.phoneJPEG(width: 1600, height: 1200, orientation: 6, pixels: TestPhotos.noise(width: 1600, height: 1200, seed: UInt64(seed)))
            }
            for photo in photos { #expect(photo.count > 2_000_000) }
            let body = Self.createJSON(images: photos.enumerated().map { ("IMG_000\($0.offset).JPG", $0.element) })
            #expect(body.count > 4 * 1024 * 1024)
            let created = try await Self.post(body, port: harness.port)
            #expect(created.status == 201)
            let stored = try Self.storedImages(harness, created)
            #expect(stored.count == 2)
            for image in stored {
                #expect(image.count <= 307_200)
                #expect(ImageFormat(sniffing: image) == .jpeg)
                let leaks = [TestPhotos.secret, Array("Exif".utf8), Array("xap/1.0".utf8)].filter { image.contains($0) }
                #expect(leaks.isEmpty)
                let decoded = try TestPhotos.decode(image, loader: Int32(CVIPS_JPEG))
                #expect(decoded.height > decoded.width, "turned upright: \(decoded.width) × \(decoded.height)")
                #expect(decoded.width * 4 == decoded.height * 3 || abs(decoded.width * 4 - decoded.height * 3) <= 4)
            }
            #expect(harness.origin.counts.count("POST", "/item") == 1)
        }
    }

    /// An iPhone's HEIC is accepted and arrives as a JPEG named after it.
    @Test func heicPhotosArriveAsJPEG() async throws {
        try await ReadPathHarness.with { harness in
            let heic = try TestPhotos.encoded(width: 400, height: 300, saver: Int32(CVIPS_SAVE_HEIC))
            #expect(ImageFormat(sniffing: heic) == .heif)
            let created = try await Self.post(Self.createJSON(images: [("IMG_0001.HEIC", heic)]), port: harness.port)
            #expect(created.status == 201)
            let stored = try Self.storedImages(harness, created)
            #expect(stored.count == 1)
            #expect(ImageFormat(sniffing: stored[0]) == .jpeg)
            let decoded = try TestPhotos.decode(stored[0], loader: Int32(CVIPS_JPEG))
            #expect((decoded.width, decoded.height) == (400, 300))
        }
    }

    /// What is not an image, or is too large to fit at any size, is a field error naming it,
    /// every one at once; nothing reaches the origin.
    @Test func uploadsThatCannotBeSentAreFieldErrors() async throws {
        try await ReadPathHarness.with { harness in
            let bomb = TestPhotos.pngBomb(width: 20_000, height: 20_000)
            let body = Self.createJSON(images: [("a.png", Self.png), ("notes.txt", Array("hello".utf8)), ("bomb.png", bomb)])
            let refused = try await Self.post(body, port: harness.port)
            #expect(refused.status == 400)
            let errors = try #require(try refused.json()["errors"] as? [[String: String]])
            #expect(errors == [
                ["field": "images[1]", "message": "images[1] must be a JPEG, PNG, HEIC, WebP, AVIF or GIF image (judged by its content, not its declared type)."],
                ["field": "images[2]", "message": "images[2] is 20000 × 20000 pixels; the limit is 40000000 pixels."],
            ])
            #expect(harness.origin.counts.count("POST", "/item") == 0)
        }
    }

    /// Only creates and updates take `--max-upload-bytes`; any other body past
    /// `--max-body-bytes` is 413 before it is read.
    @Test func theUploadLimitIsForCreatesAndUpdatesOnly() async throws {
        try await ReadPathHarness.with { harness in
            let port = harness.port
            let big = Array(repeating: UInt8(ascii: " "), count: 5 * 1024 * 1024) + Array(#"{"password":"pw1234"}"#.utf8)
            let (delete, create) = try await offPool { () -> (RawHTTPClient.Response, RawHTTPClient.Response) in
                // Refused from its Content-Length: the head alone gets the answer.
                let client = try RawHTTPClient(port: port, timeout: 30)
                try client.send("DELETE /v1/products/3 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(big.count)\r\n\r\n")
                let deleted = try client.readResponse()
                let created = try RawHTTPClient(port: port, timeout: 30).request(
                    "POST", "/v1/products", headers: ["Content-Type: application/json"], body: big)
                return (deleted, created)
            }
            #expect(delete.status == 413)
            // Read whole and validated: the fields are missing, not too large.
            #expect(create.status == 400)
        }
    }

    /// A create's body past twice `--max-body-bytes` (what a connection's buffer holds for
    /// any other request) is read whole, in Content-Length and in small chunks alike.
    @Test(arguments: [false, true])
    func anUploadPastTheOrdinaryBufferIsReadWhole(_ chunked: Bool) async throws {
        try await ReadPathHarness.with { harness in
            let port = harness.port
            let body = Array(repeating: UInt8(ascii: " "), count: 9 * 1024 * 1024) + Array(#"{"password":"pw1234"}"#.utf8)
            let response = try await offPool { () -> RawHTTPClient.Response in
                let client = try RawHTTPClient(port: port, timeout: 60)
                if !chunked {
                    return try client.request("POST", "/v1/products", headers: ["Content-Type: application/json"], body: body)
                }
                try client.send("POST /v1/products HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
                var framed: [UInt8] = []
                var offset = 0
                while offset < body.count {
                    let piece = body[offset..<min(offset + 65_536, body.count)]
                    framed += Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Array("\r\n".utf8)
                    offset += piece.count
                }
                try client.send(framed + Array("0\r\n\r\n".utf8))
                return try client.readResponse()
            }
            // Read whole and validated: the fields are missing, not too large.
            #expect(response.status == 400)
            #expect(try response.json()["type"] as? String == "urn:open-market-gateway:problem:invalid-fields")
        }
    }
}
