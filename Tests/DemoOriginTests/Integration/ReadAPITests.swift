@testable import DemoOrigin
import Foundation
import GatewayModels
import TestSupport
import Testing

extension DemoOriginIntegrationTests {
    @Suite struct ReadAPI {
        @Test func firstPageIsTheCapturedSampleOnItsOwnHost() async throws {
            try await OriginHarness.with { _, port in
                let response = try await offPool { try RawHTTPClient(port: port).request("GET", "/items/1") }
                #expect(response.status == 200)
                #expect(response.header("Content-Type") == "application/json; charset=utf-8")
                let expected = SeedSamples.itemsPage.replacingOccurrences(
                    of: "https://camp-open-market.s3.ap-northeast-2.amazonaws.com", with: "http://127.0.0.1:\(port)")
                #expect(try V1ItemsPage(json: response.body) == V1ItemsPage(json: Array(expected.utf8)))
                // Key order as in the sample, and no discounted_price where there is no discount.
                #expect(response.text.hasPrefix(
                    #"{"page":1,"items":[{"id":1,"title":"MacBook Pro","price":1690,"currency":"USD","stock":0,"thumbnails":["http://127.0.0.1:\#(port)/thumbnails/1-1.png","http://127.0.0.1:\#(port)/thumbnails/1-2.png"],"registration_date":1611523563.7237701},"#))
            }
        }

        @Test func pagesHold20ItemsAndAreEmptyPastTheEnd() async throws {
            try await OriginHarness.with { _, port in
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    #expect(try client.request("GET", "/items/7").itemIDs() == Array(121...127))
                    #expect(try client.request("GET", "/items/2").json()["page"] as? Int == 2)
                    let past = try client.request("GET", "/items/8")
                    #expect(past.status == 200)
                    #expect(past.text == #"{"page":8,"items":[]}"#)
                    #expect(try client.request("GET", "/items/9999").text == #"{"page":9999,"items":[]}"#)
                    for bad in ["/items/0", "/items/abc", "/items/-1", "/items/1.5"] {
                        let refused = try client.request("GET", bad)
                        #expect(refused.status == 400, "\(bad)")
                        #expect(refused.text == #"{"error":true,"reason":"The page must be a positive integer."}"#)
                    }
                }
            }
        }

        @Test func detailHasDescriptionsAndImages() async throws {
            try await OriginHarness.with { _, port in
                let response = try await offPool { try RawHTTPClient(port: port).request("GET", "/item/3") }
                #expect(response.status == 200)
                #expect(response.text == #"{"id":3,"title":"Mac mini","descriptions":"Mac mini: Open Market 데모 카탈로그의 상품입니다.","price":890000,"currency":"KRW","stock":90,"discounted_price":89000,"thumbnails":["http://127.0.0.1:\#(port)/thumbnails/3-1.png"],"images":["http://127.0.0.1:\#(port)/images/3-1.png"],"registration_date":1611523563.7245178}"#)
                let bhd = try await offPool { try RawHTTPClient(port: port).request("GET", "/item/30") }
                #expect(bhd.text.contains(#""price":83.25,"currency":"BHD","stock":334,"discounted_price":66.6,"#))
            }
        }

        @Test func unknownItemsAndPathsAre404NotFound() async throws {
            try await OriginHarness.with { _, port in
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    for (method, path) in [("GET", "/item/128"), ("GET", "/item/abc"), ("GET", "/item/0"), ("GET", "/nowhere"), ("PUT", "/item/1"), ("GET", "/items")] {
                        let response = try client.request(method, path)
                        #expect(response.status == 404, "\(method) \(path)")
                        #expect(response.header("Content-Type") == "application/json; charset=utf-8")
                        #expect(response.text == #"{"error":true,"reason":"Not Found"}"#)
                    }
                }
            }
        }
    }
}
