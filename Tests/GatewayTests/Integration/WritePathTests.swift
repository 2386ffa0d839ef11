import DemoOrigin
import Foundation
import Testing
import TestSupport
@testable import Gateway

extension IntegrationTests {
    /// `POST`, `PATCH` and `DELETE /v1/products…` through a real gateway and the demo origin,
    /// which counts what it gets and stores uploaded images byte for byte.
    @Suite struct WritePath {
        /// A valid 1×1 PNG.
        static let png = Array(Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")!)

        static func createJSON(title: String = "테스트 상품", price: String = "16.9") -> [UInt8] {
            Array("""
                {"title":"\(title)","description":"설명입니다","price":\(price),"currency":"USD","stock":3,"discountedPrice":10,\
                "password":"pw1234","images":[{"filename":"a b.png","contentType":"image/png","data":"\(Data(png).base64EncodedString())"}]}
                """.utf8)
        }

        @Test func aJSONCreateIsForwardedOnceAndShowsAtOnce() async throws {
            try await ReadPathHarness.with { harness in
                let port = harness.port
                let (before, created, detail, after) = try await offPool { () -> (RawHTTPClient.Response, RawHTTPClient.Response, RawHTTPClient.Response, RawHTTPClient.Response) in
                    let client = try RawHTTPClient(port: port)
                    let before = try client.request("GET", "/v1/products?page=7")
                    let created = try client.request("POST", "/v1/products", headers: ["Content-Type: application/json"], body: Self.createJSON())
                    let detail = try client.request("GET", created.header("Location") ?? "/")
                    let after = try client.request("GET", "/v1/products?page=7")
                    return (before, created, detail, after)
                }
                #expect(created.status == 201)
                #expect(created.header("Location") == "/v1/products/128")
                let body = try created.json()
                #expect(body["title"] as? String == "테스트 상품")
                #expect((body["display"] as? [String: Any])?["discountRate"] as? String == "40%")
                #expect(harness.origin.counts.count("POST", "/item") == 1)
                #expect(detail.status == 200)
                #expect(try detail.json()["price"] as? Double == 16.9)
                #expect((try before.json()["items"] as? [Any])?.count == 7)
                let ids = (try after.json()["items"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }
                #expect(ids?.last == 128)
                // The image comes back through the product's signed image URL, rendered by
                // the gateway (re-encoded: other bytes), still a 1 × 1 PNG.
                let imagePath = try #require((body["images"] as? [String])?.first)
                #expect(imagePath.hasPrefix("/v1/images/"))
                let image = try await offPool { try RawHTTPClient(port: port).request("GET", imagePath) }
                #expect(image.status == 200)
                #expect(image.header("Content-Type") == "image/png")
                #expect(image.body.prefix(8) == Self.png.prefix(8))
                #expect(Array(image.body[16..<24]) == [0, 0, 0, 1, 0, 0, 0, 1], "1 × 1")
                #expect(!image.body.elementsEqual(Self.png))
            }
        }

        @Test func aMultipartCreateWithCamelCaseFields() async throws {
            try await ReadPathHarness.with { harness in
                let port = harness.port
                var body = Array("--XyZ\r\n".utf8)
                for (name, value) in [("title", "Multipart 상품"), ("description", "폼으로"), ("price", "1000"), ("currency", "KRW"), ("stock", "5"), ("password", "pw")] {
                    body += Array("Content-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n--XyZ\r\n".utf8)
                }
                body += Array("Content-Disposition: form-data; name=\"images\"; filename=\"사진 1.png\"\r\nContent-Type: image/png\r\n\r\n".utf8)
                body += Self.png + Array("\r\n--XyZ--\r\n".utf8)
                let form = body
                let created = try await offPool {
                    try RawHTTPClient(port: port).request("POST", "/v1/products", headers: ["Content-Type: multipart/form-data; boundary=XyZ"], body: form)
                }
                #expect(created.status == 201)
                #expect(try created.json()["title"] as? String == "Multipart 상품")
                #expect((try created.json()["display"] as? [String: Any])?["price"] as? String == "KRW 1,000")
                #expect(harness.origin.counts.count("POST", "/item") == 1)
            }
        }

        @Test func invalidRequestsListEveryErrorAndNeverReachTheOrigin() async throws {
            try await ReadPathHarness.with { harness in
                let port = harness.port
                let responses = try await offPool { () -> [RawHTTPClient.Response] in
                    let client = try RawHTTPClient(port: port)
                    return [
                        try client.request("POST", "/v1/products", headers: ["Content-Type: application/json"], body: Array(#"{"price":-1,"currency":"XXQ"}"#.utf8)),
                        try client.request("POST", "/v1/products", headers: ["Content-Type: text/plain"], body: Array("hello".utf8)),
                        try client.request("POST", "/v1/products", headers: ["Content-Type: application/json"], body: Array("{not json".utf8)),
                        try client.request("POST", "/v1/products", headers: ["Content-Type: application/json"], body: Self.createJSON(price: "\"free\"")),
                        try client.request("PATCH", "/v1/products/3", headers: ["Content-Type: application/json"], body: Array(#"{"price":5}"#.utf8)),
                        try client.request("DELETE", "/v1/products/3", headers: ["Content-Type: application/json"], body: Array("{}".utf8)),
                        try client.request("DELETE", "/v1/products/abc", headers: ["Content-Type: application/json"], body: Array(#"{"password":"x"}"#.utf8)),
                    ]
                }
                #expect(responses.map(\.status) == [400, 415, 400, 400, 400, 400, 400])
                let fields = (try responses[0].json()["errors"] as? [[String: String]])?.compactMap { $0["field"] }
                #expect(fields == ["title", "description", "price", "currency", "stock", "password", "images"])
                #expect(responses[1].header("Content-Type") == "application/problem+json")
                #expect(harness.origin.counts.total == 0)
            }
        }

        @Test func anUpdateShowsTheNewPriceAndDiscountAtOnce() async throws {
            try await ReadPathHarness.with { harness in
                let port = harness.port
                let (before, patched, after) = try await offPool { () -> (RawHTTPClient.Response, RawHTTPClient.Response, RawHTTPClient.Response) in
                    let client = try RawHTTPClient(port: port)
                    let before = try client.request("GET", "/v1/products/3")
                    let patched = try client.request(
                        "PATCH", "/v1/products/3", headers: ["Content-Type: application/json"],
                        body: Array(#"{"price":990000,"discountedPrice":99000,"password":"password"}"#.utf8))
                    return (before, patched, try client.request("GET", "/v1/products/3"))
                }
                #expect((try before.json()["display"] as? [String: Any])?["price"] as? String == "KRW 890,000")
                #expect(patched.status == 200)
                let display = try after.json()["display"] as? [String: Any]
                #expect(display?["price"] as? String == "KRW 990,000")
                #expect(display?["discountedPrice"] as? String == "KRW 99,000")
                #expect(display?["discountRate"] as? String == "90%")
                #expect(after.header("Cache-Status") == "open-market-gateway; fwd=miss; stored")
                #expect(harness.origin.counts.count("PATCH", "/item/3") == 1)
            }
        }

        @Test func aDeleteRemovesTheProductAndWrongPasswordsKeepTheOriginsAnswer() async throws {
            try await ReadPathHarness.with { harness in
                let port = harness.port
                let (wrong, deleted, gone) = try await offPool { () -> (RawHTTPClient.Response, RawHTTPClient.Response, RawHTTPClient.Response) in
                    let client = try RawHTTPClient(port: port)
                    _ = try client.request("GET", "/v1/products/4")
                    let wrong = try client.request("DELETE", "/v1/products/4", headers: ["Content-Type: application/json"], body: Array(#"{"password":"nope"}"#.utf8))
                    let deleted = try client.request("DELETE", "/v1/products/4", headers: ["Content-Type: application/json"], body: Array(#"{"password":"password"}"#.utf8))
                    return (wrong, deleted, try client.request("GET", "/v1/products/4"))
                }
                #expect(wrong.status == 403)
                #expect(try wrong.json()["detail"] as? String == "The password does not match")
                #expect(deleted.status == 200)
                #expect(try deleted.json()["title"] as? String == "iPad Pro")
                #expect(gone.status == 404)
            }
        }

        @Test func anIdempotencyKeyReplaysTheFirstResponse() async throws {
            try await ReadPathHarness.with { harness in
                let port = harness.port
                let responses = try await offPool { () -> [RawHTTPClient.Response] in
                    let client = try RawHTTPClient(port: port)
                    let headers = ["Content-Type: application/json", "Idempotency-Key: listing-7f3a"]
                    return [
                        try client.request("POST", "/v1/products", headers: headers, body: Self.createJSON()),
                        try client.request("POST", "/v1/products", headers: headers, body: Self.createJSON()),
                        try client.request("POST", "/v1/products", headers: headers, body: Self.createJSON(title: "다른 상품")),
                    ]
                }
                #expect(responses.map(\.status) == [201, 201, 422])
                #expect(responses[0].header("Location") == responses[1].header("Location"))
                #expect(responses[0].header("Idempotent-Replayed") == nil)
                #expect(responses[1].header("Idempotent-Replayed") == "true")
                #expect(harness.origin.counts.count("POST", "/item") == 1)
            }
        }

        @Test func aKeyWhoseRequestNeverReachedTheOriginCanBeRetried() async throws {
            try await ReadPathHarness.with { harness in
                let port = harness.port
                harness.origin.stop()
                let headers = ["Content-Type: application/json", "Idempotency-Key: retry-after-outage"]
                let refused = try await offPool { try RawHTTPClient(port: port).request("POST", "/v1/products", headers: headers, body: Self.createJSON()) }
                #expect(refused.status == 502)
                _ = try harness.origin.resume()
                let created = try await offPool { try RawHTTPClient(port: port).request("POST", "/v1/products", headers: headers, body: Self.createJSON()) }
                #expect(created.status == 201)
                #expect(created.header("Idempotent-Replayed") == nil)
                #expect(harness.origin.counts.count("POST", "/item") == 1)
            }
        }

        @Test func aTimedOutWriteAnswers504AndIsNotResent() async throws {
            try await ReadPathHarness.with(configure: { $0.origin.client.requestTimeout = .milliseconds(300) }) { harness in
                harness.origin.setFaults(DemoFaults(latencyMs: 1500))
                let port = harness.port
                let response = try await offPool {
                    try RawHTTPClient(port: port).request("POST", "/v1/products", headers: ["Content-Type: application/json"], body: Self.createJSON())
                }
                #expect(response.status == 504)
                #expect(try response.json()["type"] as? String == "urn:open-market-gateway:problem:outcome-unknown")
                #expect((try response.json()["detail"] as? String)?.contains("Whether the change was made is unknown") == true)
                try await Task.sleep(for: .milliseconds(1800))
                #expect(harness.origin.counts.count("POST", "/item") == 1)
            }
        }

        /// The origin drops the connection after it got the request: the same problem type as
        /// a time-out (502 here), and the write is not sent again.
        @Test func aWriteWhoseConnectionIsLostAnswersOutcomeUnknown() async throws {
            try await ReadPathHarness.with { harness in
                harness.origin.setFaults(DemoFaults(dropRate: 1))
                let port = harness.port
                let response = try await offPool {
                    try RawHTTPClient(port: port).request("POST", "/v1/products", headers: ["Content-Type: application/json"], body: Self.createJSON())
                }
                #expect(response.status == 502)
                #expect(try response.json()["type"] as? String == "urn:open-market-gateway:problem:outcome-unknown")
                #expect(try response.json()["title"] as? String == "Outcome unknown")
                #expect(harness.origin.counts.count("POST", "/item") == 1)
            }
        }
    }
}
