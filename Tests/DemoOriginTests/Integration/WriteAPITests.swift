@testable import DemoOrigin
import Foundation
import GatewayModels
import TestSupport
import Testing
import GatewaySupport

extension DemoOriginIntegrationTests {
    @Suite struct WriteAPI {
        @Test func postCreatesAnItemWhoseImagesAreServedBack() async throws {
            try await OriginHarness.with { origin, port in
                let png = Bodies.png(3)
                let created = try await offPool {
                    try RawHTTPClient(port: port).multipart(
                        "POST", "/item", boundary: "b1",
                        Bodies.createFields() + [Bodies.field("discounted_price", "9900.5"), Bodies.image("a.png", png), Bodies.image("b.jpg", Bodies.jpeg, type: "image/jpeg")])
                }
                #expect(created.status == 200)
                let item = try V1Item(json: created.body)
                #expect(item.id == 128)
                #expect(item.title == "테스트 상품")
                #expect(item.descriptions == "설명")
                #expect(item.price == 12000)
                #expect(item.discountedPrice == Decimal(string: "9900.5"))
                #expect(item.currency == "KRW")
                #expect(item.stock == 3)
                #expect(item.thumbnails == ["http://127.0.0.1:\(port)/thumbnails/128-1.png", "http://127.0.0.1:\(port)/thumbnails/128-2.jpg"])
                #expect(item.images == ["http://127.0.0.1:\(port)/images/128-1.png", "http://127.0.0.1:\(port)/images/128-2.jpg"])
                let now = Decimal(Date().timeIntervalSince1970)
                #expect(item.registrationDate > now - 60 && item.registrationDate <= now + 1)
                #expect(DecimalText.int64(item.registrationDate) == nil)
                #expect(origin.item(id: 128)?.password == "secret")
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let image = try client.request("GET", "/images/128-1.png")
                    #expect(image.header("Content-Type") == "image/png")
                    #expect(image.body == png)
                    let jpeg = try client.request("GET", "/thumbnails/128-2.jpg")
                    #expect(jpeg.header("Content-Type") == "image/jpeg")
                    #expect(jpeg.body == Bodies.jpeg)
                    #expect(try client.request("GET", "/item/128").body == created.body)
                    #expect(try client.request("GET", "/items/7").itemIDs() == Array(121...128))
                }
            }
        }

        @Test func patchChangesOnlyTheFieldsSentAndReplacesImages() async throws {
            try await OriginHarness.with { origin, port in
                let before = try #require(origin.item(id: 5))
                let updated = try await offPool {
                    try RawHTTPClient(port: port).multipart(
                        "PATCH", "/item/5", boundary: "xyz",
                        [Bodies.field("title", "Apple Pencil 2"), Bodies.field("password", "password"), Bodies.image("new.png", Bodies.png(9))])
                }
                #expect(updated.status == 200)
                #expect(updated.text == #"{"id":5,"title":"Apple Pencil 2","descriptions":"Apple Pencil: Open Market 데모 카탈로그의 상품입니다.","price":165,"currency":"USD","stock":5000000,"discounted_price":160,"thumbnails":["http://127.0.0.1:\#(port)/thumbnails/5-1.png"],"images":["http://127.0.0.1:\#(port)/images/5-1.png"],"registration_date":\#(DecimalText.json(before.registrationDate))}"#)
                let image = try await offPool { try RawHTTPClient(port: port).request("GET", "/images/5-1.png") }
                #expect(image.body == Bodies.png(9))
                // Without images, the images stay.
                let priced = try await offPool {
                    try RawHTTPClient(port: port).multipart("PATCH", "/item/5", boundary: "xyz", [Bodies.field("password", "password"), Bodies.field("stock", "0")])
                }
                #expect(priced.status == 200)
                #expect(origin.item(id: 5)?.stock == 0)
                #expect(origin.item(id: 5)?.images.count == 1)
            }
        }

        @Test func patchRefusesWrongPasswordMissingPasswordAndUnknownItems() async throws {
            try await OriginHarness.with { origin, port in
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let wrong = try client.multipart("PATCH", "/item/5", boundary: "q", [Bodies.field("title", "x"), Bodies.field("password", "nope")])
                    #expect(wrong.status == 403)
                    #expect(wrong.text == #"{"error":true,"reason":"The password does not match"}"#)
                    let missing = try client.multipart("PATCH", "/item/5", boundary: "q", [Bodies.field("title", "x")])
                    #expect(missing.status == 400)
                    #expect(missing.text == #"{"error":true,"reason":"Value required for key 'password'."}"#)
                    let unknown = try client.multipart("PATCH", "/item/999", boundary: "q", [Bodies.field("password", "password")])
                    #expect(unknown.status == 404)
                    #expect(unknown.text == #"{"error":true,"reason":"Not Found"}"#)
                }
                #expect(origin.item(id: 5)?.title == "Apple Pencil")
            }
        }

        @Test func deleteTakesTheJSONPasswordAndAnswersTheDeletedItem() async throws {
            try await OriginHarness.with { origin, port in
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let detail = try client.request("GET", "/item/4")
                    let json = ["Content-Type: application/json"]
                    let wrong = try client.request("DELETE", "/item/4", headers: json, body: Array(#"{"password":"nope"}"#.utf8))
                    #expect(wrong.status == 403)
                    #expect(wrong.text == #"{"error":true,"reason":"The password does not match"}"#)
                    let noPassword = try client.request("DELETE", "/item/4", headers: json, body: Array(#"{"id":4}"#.utf8))
                    #expect(noPassword.status == 400)
                    #expect(noPassword.text == #"{"error":true,"reason":"Value required for key 'password'."}"#)
                    let notJSON = try client.request("DELETE", "/item/4", headers: json, body: Array("password=password".utf8))
                    #expect(notJSON.status == 400)
                    #expect(notJSON.text == #"{"error":true,"reason":"The body must be a JSON object with a password."}"#)
                    let form = try client.request("DELETE", "/item/4", headers: ["Content-Type: text/plain"], body: Array(#"{"password":"password"}"#.utf8))
                    #expect(form.status == 415)
                    #expect(form.text == #"{"error":true,"reason":"Unsupported Media Type: expected application/json"}"#)
                    let deleted = try client.request("DELETE", "/item/4", headers: json, body: Array(#"{"password":"password"}"#.utf8))
                    #expect(deleted.status == 200)
                    #expect(deleted.body == detail.body)
                    #expect(try client.request("GET", "/item/4").status == 404)
                    #expect(try client.request("GET", "/images/4-1.png").status == 404)
                    #expect(try client.request("DELETE", "/item/4", headers: json, body: Array(#"{"password":"password"}"#.utf8)).status == 404)
                    #expect(try client.request("GET", "/items/1").itemIDs() == [1, 2, 3] + Array(5...21))
                }
                #expect(origin.items.count == 126)
            }
        }
    }
}
