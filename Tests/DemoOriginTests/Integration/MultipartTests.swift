@testable import DemoOrigin
import Foundation
import GatewayModels
import TestSupport
import Testing

extension DemoOriginIntegrationTests {
    /// What real clients sent the v1 server, and what it refused.
    @Suite struct Multipart {
        @Test(arguments: [false, true])
        func acceptsQuotedAndUnquotedBoundaries(_ quoted: Bool) async throws {
            try await OriginHarness.with { _, port in
                let response = try await offPool {
                    try RawHTTPClient(port: port).multipart(
                        "POST", "/item", boundary: "----WebKitFormBoundary7MA4YWxkTrZu0gW", quoted: quoted,
                        Bodies.createFields() + [Bodies.image("a.png", Bodies.png())])
                }
                #expect(response.status == 200)
                #expect(try V1Item(json: response.body).title == "테스트 상품")
            }
        }

        @Test func acceptsPartsInAnyOrderAndKoreanFileNamesWithSpaces() async throws {
            try await OriginHarness.with { origin, port in
                // Images first, fields reversed, a preamble, a file name with spaces and Hangul,
                // a boundary with characters RFC 2046 allows, and an unknown field (ignored).
                let boundary = "Boundary-8C4A'()+_,-./:=?"
                let extended = ("Content-Disposition: form-data; name=\"images[]\"; filename*=UTF-8''%EC%82%AC%EC%A7%84%202.jpg\r\nContent-Type: image/jpeg", Bodies.jpeg)
                let parts = [Bodies.image("상품 사진 1.png", Bodies.png(5)), Bodies.field("extra", "ignored"), extended] + Bodies.createFields().reversed()
                let body = Array("This is the preamble.\r\n".utf8) + Bodies.multipart(boundary: boundary, parts)
                // `/item/`, with the trailing slash some clients sent.
                let created = try await offPool {
                    try RawHTTPClient(port: port).request("POST", "/item/", headers: ["Content-Type: multipart/form-data; boundary=\"\(boundary)\""], body: body)
                }
                #expect(created.status == 200)
                #expect(try V1Item(json: created.body).images == ["http://127.0.0.1:\(port)/images/128-1.png", "http://127.0.0.1:\(port)/images/128-2.jpg"])
                let stored = try #require(origin.item(id: 128)).images.map { image -> [UInt8] in
                    if case .uploaded(let bytes, _, _) = image { bytes } else { [] }
                }
                #expect(stored == [Bodies.png(5), Bodies.jpeg])
            }
        }

        @Test func refusesWhatTheRealServerRefused() async throws {
            try await OriginHarness.with { origin, port in
                let six = (1...6).map { Bodies.image("\($0).png", Bodies.png(UInt8($0))) }
                let cases: [(String, [(String, [UInt8])], Int, String)] = [
                    ("six images", Bodies.createFields() + six, 400, "The number of images must be 5 or less"),
                    ("no images", Bodies.createFields(), 400, "Value required for key 'images[]'."),
                    ("no title", Array(Bodies.createFields().dropFirst()) + [Bodies.image("a.png", Bodies.png())], 400, "Value required for key 'title'."),
                    ("empty title", [Bodies.field("title", "")] + Array(Bodies.createFields().dropFirst()) + [Bodies.image("a.png", Bodies.png())], 400, "Value required for key 'title'."),
                    ("two titles", Bodies.createFields() + [Bodies.field("title", "again"), Bodies.image("a.png", Bodies.png())], 400, "Duplicate value for key 'title'."),
                    ("not an image", Bodies.createFields() + [Bodies.image("a.png", Array("GIF89a".utf8), type: "image/gif")], 400, "Image 1 is not a PNG or JPEG image."),
                ]
                for (name, parts, status, reason) in cases {
                    let response = try await offPool { try RawHTTPClient(port: port).multipart("POST", "/item", boundary: "edge", parts) }
                    #expect(response.status == status, "\(name)")
                    #expect(response.text == #"{"error":true,"reason":"\#(reason)"}"#, "\(name)")
                }
                #expect(origin.items.count == 127)
            }
        }

        @Test func refusesBadNumbersAndCurrencies() async throws {
            try await OriginHarness.with { _, port in
                let cases: [(String, String, String)] = [
                    ("stock", "many", "Value of type 'Int' required for key 'stock'."),
                    ("stock", "-1", "Value of type 'Int' required for key 'stock'."),
                    ("stock", "+5", "Value of type 'Int' required for key 'stock'."),
                    ("price", "12,000", "Value of type 'Decimal' required for key 'price'."),
                    ("price", "-5", "Value of type 'Decimal' required for key 'price'."),
                    ("discounted_price", "abc", "Value of type 'Decimal' required for key 'discounted_price'."),
                    ("currency", "krw", "Value of 'currency' must be a three-letter code such as KRW."),
                ]
                for (field, value, reason) in cases {
                    let parts = Bodies.createFields().filter { !$0.0.contains("\"\(field)\"") } + [Bodies.field(field, value), Bodies.image("a.png", Bodies.png())]
                    let response = try await offPool { try RawHTTPClient(port: port).multipart("POST", "/item", boundary: "num", parts) }
                    #expect(response.status == 400, "\(field)=\(value)")
                    #expect(response.text == #"{"error":true,"reason":"\#(reason)"}"#, "\(field)=\(value)")
                }
            }
        }

        @Test func refusesBodiesThatAreNotMultipartOrAreMalformed() async throws {
            try await OriginHarness.with { _, port in
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let json = try client.request("POST", "/item", headers: ["Content-Type: application/json"], body: Array("{}".utf8))
                    #expect(json.status == 415)
                    #expect(json.text == #"{"error":true,"reason":"Unsupported Media Type: expected multipart/form-data"}"#)
                    let noBoundary = try client.request("POST", "/item", headers: ["Content-Type: multipart/form-data"], body: Array("x".utf8))
                    #expect(noBoundary.status == 400)
                    #expect(noBoundary.text == #"{"error":true,"reason":"Content-Type \"multipart/form-data\" is not multipart/form-data with a boundary."}"#)
                    // LF-only framing: RFC 2046 requires CRLF, and so did the server.
                    let lf = Array("--b\nContent-Disposition: form-data; name=\"title\"\n\nx\n--b--\n".utf8)
                    let bare = try client.request("POST", "/item", headers: ["Content-Type: multipart/form-data; boundary=b"], body: lf)
                    #expect(bare.status == 400)
                    #expect(bare.text == #"{"error":true,"reason":"The boundary line before part 0 is malformed."}"#)
                    let unterminated = Array("--b\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nx".utf8)
                    let cut = try client.request("POST", "/item", headers: ["Content-Type: multipart/form-data; boundary=b"], body: unterminated)
                    #expect(cut.status == 400)
                    #expect(cut.text == #"{"error":true,"reason":"The multipart body ends before its closing boundary."}"#)
                }
            }
        }
    }
}
