import BodyCompression
@testable import HTTPInterface
import Testing
@testable import Gateway

@Suite struct ResponseCompressionTests {
    private let policy = ResponseCompression(minimumBytes: 1024)

    @Test func compressesLargeCompressibleBodiesForGzipClients() throws {
        var response = GatewayResponse.json([UInt8](repeating: UInt8(ascii: "a"), count: 2000))
        #expect(policy.prepare(&response, acceptsGzip: true))
        #expect(response.headers["Vary"] == "Accept-Encoding")
        policy.compress(&response)
        #expect(response.headers["Content-Encoding"] == "gzip")
        #expect(try Gzip.decompress(response.body, maxBytes: 4000).count == 2000)
    }

    @Test func varyIsSetEvenWhenNotCompressing() {
        var small = GatewayResponse.json([UInt8](repeating: 0x20, count: 1023))
        #expect(!policy.prepare(&small, acceptsGzip: true))
        #expect(small.headers["Vary"] == "Accept-Encoding")
        var identityClient = GatewayResponse.json([UInt8](repeating: 0x20, count: 5000))
        #expect(!policy.prepare(&identityClient, acceptsGzip: false))
        #expect(identityClient.headers["Vary"] == "Accept-Encoding")
    }

    @Test func leavesOtherTypesAndEncodedBodiesAlone() {
        var image = GatewayResponse(status: 200, headers: ["Content-Type": "image/png"], body: [UInt8](repeating: 0, count: 5000))
        #expect(!policy.prepare(&image, acceptsGzip: true))
        #expect(image.headers["Vary"] == nil)
        var encoded = GatewayResponse(status: 200, headers: ["Content-Type": "application/json", "Content-Encoding": "gzip", "Vary": "Accept-Language"], body: [UInt8](repeating: 0, count: 5000))
        #expect(!policy.prepare(&encoded, acceptsGzip: true))
        #expect(encoded.headers["Vary"] == "Accept-Language, Accept-Encoding")
    }

    @Test(arguments: [
        ("application/json", true), ("application/json; charset=utf-8", true), ("application/problem+json", true),
        ("application/vnd.api+json", true), ("text/plain", true), ("image/svg+xml", true), ("image/jpeg", false),
        ("application/octet-stream", false),
    ])
    func compressibleTypes(type: String, expected: Bool) {
        #expect(ResponseCompression.isCompressible(type) == expected)
    }
}
