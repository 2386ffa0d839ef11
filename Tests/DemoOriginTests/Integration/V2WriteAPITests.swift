@testable import DemoOrigin
import Foundation
import GatewayModels
import TestSupport
import Testing

extension DemoOriginIntegrationTests {
    /// v2/v2b creates and updates, and the checks they make.
    @Suite struct V2WriteAPI {
        @Test(arguments: [OriginGeneration.v2, .v2b])
        func createTakesMultipartAndAnswers201WithTheDetail(_ generation: OriginGeneration) async throws {
            try await OriginHarness.with(configure: V2.configure(generation)) { origin, port in
                let png = Bodies.png(4)
                let created = try await offPool {
                    try RawHTTPClient(port: port).v2Create(V2.two, [
                        V2.params(V2.createParams(generation, vendor: V2.two, extra: #","discounted_price":2000"#)),
                        V2.image("a.png", png), V2.image("b.jpg", Bodies.jpeg, type: "image/jpeg"),
                    ])
                }
                #expect(created.status == 201)
                #expect(created.header("Content-Type") == "application/json")
                let product = try V2Product(json: created.body)
                let base = "http://127.0.0.1:\(port)"
                #expect(product.id == 128)
                #expect(product.vendorId == 2)
                #expect(product.name == "테스트 상품")
                #expect(product.description == "설명입니다")
                #expect(product.price == 12000)
                #expect(product.bargainPrice == 10000)
                #expect(product.discountedPrice == 2000)
                #expect(product.stock == 0)
                #expect(product.currency == "KRW")
                #expect(product.thumbnail == "\(base)/thumbnails/128-1.png")
                #expect(product.images?.map(\.url) == ["\(base)/images/128-1.png", "\(base)/images/128-2.jpg"])
                #expect(product.images?.map(\.thumbnailURL) == ["\(base)/thumbnails/128-1.png", "\(base)/thumbnails/128-2.jpg"])
                #expect(created.text.contains(#""price":12000.0,"#))
                #expect(created.text.contains(#""bargain_price":10000.0,"discounted_price":2000.0,"stock":0,"#))
                // Dates: now, in Seoul, in the generation's format.
                let dateFormat = generation == .v2 ? /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d\d/ : /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/
                #expect(try dateFormat.wholeMatch(in: product.createdAt) != nil)
                let millis = try #require(OriginTimestamp.millis(localDateTime: product.createdAt))
                #expect(abs(Double(millis) / 1000 - Date().timeIntervalSince1970) < 60)
                #expect(origin.item(id: 128)?.vendorID == 2)
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    #expect(try client.request("GET", "/api/products/128").body == created.body)
                    #expect(try client.request("GET", "/images/128-1.png").body == png)
                    #expect(try client.request("GET", "/thumbnails/128-2.jpg").body == Bodies.jpeg)
                    let page = try V2ProductsPage(json: client.request("GET", "/api/products?page_no=1&items_per_page=2").body)
                    #expect(page.pages.map(\.id) == [128, 127])
                    #expect(page.totalCount == 128)
                }
            }
        }

        @Test func pricesFromTenMillionUpAreInENotation() async throws {
            try await OriginHarness.with(configure: V2.configure(.v2)) { _, port in
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let created = try client.v2Create(V2.one, [
                        V2.params(V2.createParams(.v2, price: "123123123", extra: #","discounted_price":23123123,"stock":5"#)), V2.image("a.png", Bodies.png()),
                    ])
                    #expect(created.status == 201)
                    #expect(created.text.contains(#""price":1.23123123E8,"description":"설명입니다","bargain_price":1.0E8,"discounted_price":2.3123123E7,"stock":5,"#))
                    let listed = try client.request("GET", "/api/products?page_no=1&items_per_page=1")
                    #expect(listed.text.contains(#""price":1.23123123E8,"bargain_price":1.0E8,"discounted_price":2.3123123E7,"stock":5,"#))
                    let secret = #""secret":"\#(V2.one.secret)""#
                    let below = try client.v2JSON("PATCH", "/api/products/128", V2.one, #"{\#(secret),"price":9999999,"discounted_price":0}"#)
                    #expect(below.text.contains(#""price":9999999.0,"description":"설명입니다","bargain_price":9999999.0,"discounted_price":0.0,"#))
                    let ten = try client.v2JSON("PATCH", "/api/products/128", V2.one, #"{\#(secret),"price":10000000}"#)
                    #expect(ten.text.contains(#""price":1.0E7,"description":"설명입니다","bargain_price":1.0E7,"discounted_price":0.0,"#))
                    let cents = try client.v2JSON("PATCH", "/api/products/128", V2.one, #"{\#(secret),"price":12.5,"currency":"USD"}"#)
                    #expect(cents.text.contains(#""currency":"USD","price":12.5,"description":"설명입니다","bargain_price":12.5,"discounted_price":0.0,"#))
                }
            }
        }

        @Test(arguments: [OriginGeneration.v2, .v2b])
        func theOtherGenerationsDescriptionKeyIs400(_ generation: OriginGeneration) async throws {
            try await OriginHarness.with(configure: V2.configure(generation)) { origin, port in
                let right = V2.descriptionKey(generation)
                let wrong = generation == .v2 ? "description" : "descriptions"
                let swapped = V2.createParams(generation).replacingOccurrences(of: "\"\(right)\"", with: "\"\(wrong)\"")
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let created = try client.v2Create(V2.one, [V2.params(swapped), V2.image("a.png", Bodies.png())])
                    #expect(created.status == 400)
                    #expect(created.header("Content-Type") == "text/plain; charset=utf-8")
                    #expect(created.text == "unknown field \(wrong): this API takes \(right)")
                    let both = swapped.replacingOccurrences(of: "\"name\"", with: "\"\(right)\":\"x\",\"name\"")
                    #expect(try client.v2Create(V2.one, [V2.params(both), V2.image("a.png", Bodies.png())]).status == 400)
                    let patched = try client.v2JSON("PATCH", "/api/products/1", V2.one, #"{"secret":"\#(V2.one.secret)","\#(wrong)":"x"}"#)
                    #expect(patched.status == 400)
                    #expect(patched.text == "unknown field \(wrong): this API takes \(right)")
                    let missing = V2.createParams(generation).replacingOccurrences(of: #""\#(right)":"설명입니다","#, with: "")
                    let refused = try client.v2Create(V2.one, [V2.params(missing), V2.image("a.png", Bodies.png())])
                    #expect(refused.text == "\(right) is required")
                }
                #expect(origin.items.count == 127)
                #expect(origin.item(id: 1)?.descriptions.hasPrefix("Apple M1") == true)
            }
        }

        @Test func createRefusesBadFormsWith400() async throws {
            try await OriginHarness.with(configure: V2.configure(.v2)) { origin, port in
                let params = V2.params(V2.createParams(.v2))
                let png = V2.image("a.png", Bodies.png())
                let big = Bodies.png() + [UInt8](repeating: 0, count: 307_201 - Bodies.png().count)
                let cases: [(String, [(String, [UInt8])], String)] = [
                    ("no params", [png], "Required part 'params' is not present."),
                    ("no images", [params], "Required part 'images' is not present."),
                    ("v1 image name", [params, Bodies.image("a.png", Bodies.png())], "Required part 'images' is not present."),
                    ("six images", [params] + Array(repeating: png, count: 6), "at most 5 images"),
                    ("not an image", [params, V2.image("a.gif", Array("GIF89a".utf8), type: "image/gif")], "image 1 is not a PNG or JPEG image"),
                    ("too large", [params, png, V2.image("big.png", big)], "image 2 is larger than 300 KB"),
                    ("params not JSON", [V2.params("name=x"), png], "params must be a JSON object"),
                    ("price as text", [V2.params(V2.createParams(.v2, price: #""12000""#)), png], "price must be a non-negative number"),
                    ("negative price", [V2.params(V2.createParams(.v2, price: "-1")), png], "price must be a non-negative number"),
                    ("fractional stock", [V2.params(V2.createParams(.v2, extra: #","stock":1.5"#)), png], "stock must be a non-negative integer"),
                    ("bad currency", [V2.params(V2.createParams(.v2).replacingOccurrences(of: "KRW", with: "won")), png], "currency must be a three-letter code such as KRW"),
                    ("discount above price", [V2.params(V2.createParams(.v2, extra: #","discounted_price":12001"#)), png], "discounted_price must not exceed the price"),
                    ("no secret", [V2.params(#"{"name":"a","descriptions":"b","price":1,"currency":"KRW"}"#), png], "secret is required"),
                    ("no name", [V2.params(#"{"descriptions":"b","price":1,"currency":"KRW","secret":"demo-secret-1"}"#), png], "name is required"),
                ]
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    for (name, parts, reason) in cases {
                        let response = try client.v2Create(V2.one, parts)
                        #expect(response.status == 400, "\(name)")
                        #expect(response.text == reason, "\(name)")
                    }
                    let form = try client.request("POST", "/api/products", headers: V2.jsonHeaders(V2.one), body: Array(V2.createParams(.v2).utf8))
                    #expect(form.status == 400)
                    #expect(form.text == "body must be multipart/form-data")
                    // Exactly 300 KB is fine.
                    let limit = Bodies.png() + [UInt8](repeating: 0, count: 307_200 - Bodies.png().count)
                    #expect(try client.v2Create(V2.one, [params, V2.image("limit.png", limit)]).status == 201)
                }
                #expect(origin.items.count == 128)
            }
        }

        @Test(arguments: [OriginGeneration.v2, .v2b])
        func patchChangesTheFieldsSentAndKeepsTheDiscountAsAnAmount(_ generation: OriginGeneration) async throws {
            try await OriginHarness.with(configure: V2.configure(generation)) { origin, port in
                let secret = #""secret":"\#(V2.one.secret)""#
                let key = V2.descriptionKey(generation)
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let named = try client.v2JSON(
                        "PATCH", "/api/products/7", V2.one,
                        #"{\#(secret),"name":"iPhone 12 mini 256GB","\#(key)":"새 설명","discounted_price":50000,"stock":3,"thumbnail_id":1}"#)
                    #expect(named.status == 200)
                    let product = try V2Product(json: named.body)
                    #expect(product.name == "iPhone 12 mini 256GB")
                    #expect(product.description == "새 설명")
                    #expect(product.price == 950_000)
                    #expect(product.bargainPrice == 900_000)
                    #expect(product.discountedPrice == 50000)
                    #expect(product.stock == 3)
                    #expect(try client.request("GET", "/api/products/7").body == named.body)
                    // A new price keeps the discount amount.
                    let repriced = try V2Product(json: client.v2JSON("PATCH", "/api/products/7", V2.one, #"{\#(secret),"price":1000000}"#).body)
                    #expect(repriced.bargainPrice == 950_000)
                    #expect(repriced.discountedPrice == 50000)
                    #expect(repriced.name == "iPhone 12 mini 256GB")
                    let tooCheap = try client.v2JSON("PATCH", "/api/products/7", V2.one, #"{\#(secret),"price":40000}"#)
                    #expect(tooCheap.status == 400)
                    #expect(tooCheap.text == "discounted_price must not exceed the price")
                    let tooMuch = try client.v2JSON("PATCH", "/api/products/7", V2.one, #"{\#(secret),"discounted_price":1000001}"#)
                    #expect(tooMuch.text == "discounted_price must not exceed the price")
                    let undiscounted = try V2Product(json: client.v2JSON("PATCH", "/api/products/7", V2.one, #"{\#(secret),"discounted_price":0}"#).body)
                    #expect(undiscounted.bargainPrice == 1_000_000)
                    #expect(undiscounted.discountedPrice == 0)
                    let unknown = try client.v2JSON("PATCH", "/api/products/999", V2.one, #"{\#(secret),"stock":1}"#)
                    #expect(unknown.status == 404)
                    #expect(unknown.text == "product not found")
                    let notJSON = try client.request("PATCH", "/api/products/7", headers: V2.identifier(V2.one) + ["Content-Type: text/plain"], body: Array("{}".utf8))
                    #expect(notJSON.status == 400)
                    #expect(notJSON.text == "body must be application/json")
                }
                #expect(origin.item(id: 7)?.discountedPrice == nil)
                #expect(origin.item(id: 7)?.vendorID == 1)
            }
        }
    }
}
