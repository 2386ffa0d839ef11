import Foundation
import GatewayModels
import Testing
import GatewaySupport

/// The contract features every generation gets: vendors, image thumbnails, page sizes
/// assembled from v1's fixed pages, search targets, and the delete-flow answer checks.
@Suite struct GenerationFeaturesTests {
    @Test func vendorsFromTheRealSamples() throws {
        let v2bPage = try OriginGeneration.v2b.mapPage(bytes: Fixture.v2bProductsPage.bytes, page: 3, locale: .koKR)
        // The quirk page: rows from offset 40 on are this page's.
        #expect(v2bPage.items.count == 20)
        #expect(v2bPage.items[0].id == 70)
        #expect(v2bPage.items[0].vendor == ProductVendor(id: 16, name: "neph1234"))
        let v2Page = try OriginGeneration.v2.mapPage(bytes: Fixture.v2ProductsPage.bytes, page: 1, locale: .koKR)
        // v2 list items name only the vendor's id.
        #expect(v2Page.items[0].vendor == ProductVendor(id: 6, name: nil))
        let v2b = try OriginGeneration.v2b.mapDetail(bytes: Fixture.v2bProduct.bytes, locale: .koKR)
        #expect(v2b.summary.vendor == ProductVendor(id: 15, name: "red123"))
        let v2 = try OriginGeneration.v2.mapDetail(bytes: Fixture.v2Product.bytes, locale: .koKR)
        #expect(v2.summary.vendor == ProductVendor(id: 2, name: "dacodaco"))
        let v1 = try OriginGeneration.v1.mapDetail(bytes: Fixture.v1Item.bytes, locale: .koKR)
        #expect(v1.summary.vendor == nil)
        #expect(String(decoding: v1.jsonBytes(), as: UTF8.self).contains(#""vendor":null,"display""#))
    }

    @Test func imageThumbnailsAreAlignedWithImages() throws {
        let hook: ImageURLRewriter = { "/img?" + $0.suffix(10) }
        let v2b = try OriginGeneration.v2b.mapDetail(bytes: Fixture.v2bProduct.bytes, locale: .koKR, imageURL: hook)
        #expect(v2b.images == ["/img?f61_origin", "/img?743_origin"])
        #expect(v2b.imageThumbnails == ["/img?5928_thumb", "/img?a93b_thumb"])
        let json = String(decoding: v2b.jsonBytes(), as: UTF8.self)
        #expect(json.contains(#""imageThumbnails":["/img?5928_thumb","/img?a93b_thumb"]"#))
        let v1 = try OriginGeneration.v1.mapDetail(bytes: Fixture.v1Item.bytes, locale: .koKR)
        #expect(v1.imageThumbnails == Array(repeating: nil, count: v1.images.count))
        #expect(ProductDetail(summary: v1.summary, description: "", images: ["a", "b"], imageThumbnails: ["x", "y", "z"]).imageThumbnails == ["x", "y"])
    }

    @Test func v1OriginPagesCoverThePageAndTheItemAfterIt() {
        #expect(OriginGeneration.v1OriginPages(for: ListQuery(page: 1, pageSize: 20)) == 1...2)
        #expect(OriginGeneration.v1OriginPages(for: ListQuery(page: 3, pageSize: 20)) == 3...4)
        #expect(OriginGeneration.v1OriginPages(for: ListQuery(page: 1, pageSize: 5)) == 1...1)
        #expect(OriginGeneration.v1OriginPages(for: ListQuery(page: 4, pageSize: 5)) == 1...2)
        #expect(OriginGeneration.v1OriginPages(for: ListQuery(page: 2, pageSize: 30)) == 2...4)
        #expect(OriginGeneration.v1OriginPages(for: ListQuery(page: 1, pageSize: 100)) == 1...6)
        #expect(OriginGeneration.v1OriginPages(for: ListQuery(page: 10_000, pageSize: 100)) == 49_996...50_001)
    }

    /// Origin pages of 20 numbered from `first`, holding items `1…total`.
    private static func v1Pages(_ range: ClosedRange<Int>, total: Int) throws -> [V1ItemsPage] {
        var pages: [V1ItemsPage] = []
        for number in range {
            let ids = ((number - 1) * 20 + 1)...(number * 20)
            let items = ids.filter { $0 <= total }.map {
                #"{"id":\#($0),"title":"t\#($0)","price":100,"currency":"KRW","stock":1,"thumbnails":[],"registration_date":1611523563.5}"#
            }
            pages.append(try OriginGeneration.v1Page(bytes: Array(#"{"page":\#(number),"items":[\#(items.joined(separator: ","))]}"#.utf8)))
            if items.count < 20 { break }
        }
        return pages
    }

    @Test func v1PagesAssembleAnyPageSizeWithAnExactNextFlag() throws {
        func page(_ page: Int, _ size: Int, total: Int) throws -> ProductPage {
            let query = ListQuery(page: page, pageSize: size)
            return try OriginGeneration.mapV1Pages(
                try Self.v1Pages(OriginGeneration.v1OriginPages(for: query), total: total), query: query, locale: .koKR)
        }
        let middle = try page(2, 30, total: 100)
        #expect(middle.items.map(\.id) == Array(31...60))
        #expect(middle.hasNextPage)
        let last = try page(4, 30, total: 100)
        #expect(last.items.map(\.id) == Array(91...100))
        #expect(!last.hasNextPage)
        // Exactly full: 40 items, page 2 of 20 ends the list; the read-ahead page is empty.
        let full = try page(2, 20, total: 40)
        #expect(full.items.map(\.id) == Array(21...40))
        #expect(!full.hasNextPage)
        let oneMore = try page(2, 20, total: 41)
        #expect(oneMore.hasNextPage)
        let small = try page(3, 7, total: 100)
        #expect(small.items.map(\.id) == Array(15...21))
        #expect(small.page == 3)
        let beyond = try page(9, 20, total: 100)
        #expect(beyond.items.isEmpty && !beyond.hasNextPage)
    }

    @Test func listTargetsCarryPageSizeAndEncodedSearch() {
        #expect(OriginGeneration.v2.listTarget(ListQuery(page: 2, pageSize: 50)) == "/api/products?page_no=2&items_per_page=50")
        #expect(OriginGeneration.v2b.listTarget(ListQuery(page: 1, pageSize: 20, search: "맥북 & pro=1+"))
            == "/api/products?page_no=1&items_per_page=20&search_value=%EB%A7%A5%EB%B6%81%20%26%20pro%3D1%2B")
        #expect(OriginGeneration.v2b.supportsSearch && !OriginGeneration.v2.supportsSearch && !OriginGeneration.v1.supportsSearch)
    }

    @Test func searchTextIsNormalised() {
        #expect(ListQuery.normalisedSearch("  iPhone \u{3000} 15  ") == "iPhone 15")
        #expect(ListQuery.normalisedSearch("iPhone\t15") == nil, "a tab is a control character")
        #expect(ListQuery.normalisedSearch("a" + String(repeating: " ", count: 100)) == nil, "101 code points before trimming")
        #expect(ListQuery.normalisedSearch("Cafe\u{0301}") == "Café")
        #expect(ListQuery.normalisedSearch("   ") == nil)
        #expect(ListQuery.normalisedSearch("") == nil)
        #expect(ListQuery.normalisedSearch("a\u{0}b") == nil)
        #expect(ListQuery.normalisedSearch(String(repeating: "가", count: 100)) == String(repeating: "가", count: 100))
        #expect(ListQuery.normalisedSearch(String(repeating: "가", count: 101)) == nil)
        // Code points, as JSON Schema's maxLength counts them: 100 decomposed syllables are 200.
        #expect(ListQuery.normalisedSearch(String(repeating: "\u{1100}\u{1161}", count: 50)) == String(repeating: "가", count: 50))
        #expect(ListQuery.normalisedSearch(String(repeating: "\u{1100}\u{1161}", count: 51)) == nil)
    }

    @Test func deleteAnswersAreCheckedBeforeTheyAreFollowed() {
        #expect(OriginDeleteAnswer.productSecret(Array("3f9a0c-._~Z\n".utf8)) == "3f9a0c-._~Z")
        #expect(OriginDeleteAnswer.productSecret(Array(#""abc123""#.utf8)) == "abc123")
        for hostile in ["../x", "a/b", "..", ".", "", "a b", "a%2Fb", "a?b", "https://evil.example/x", "a#b"] {
            #expect(OriginDeleteAnswer.productSecret(Array(hostile.utf8)) == nil, "\(hostile)")
        }
        #expect(OriginDeleteAnswer.archivedTarget(Array("/api/products/testDeleteURI=".utf8)) == "/api/products/testDeleteURI=")
        #expect(OriginDeleteAnswer.archivedTarget(Array(" /api/products/ab12 \r\n".utf8)) == "/api/products/ab12")
        for hostile in [
            "https://evil.example/api/products/1", "//evil.example/api/products/1", "/api/products/", "/api/products/../admin",
            "/api/products/1/../../x", "/api/products/a?b=c", "/api/products/a#b", "/api/products/%2e%2e", "/api/items/1",
            "api/products/1", "/api/products/..", "http://127.0.0.1/api/products/1",
        ] {
            #expect(OriginDeleteAnswer.archivedTarget(Array(hostile.utf8)) == nil, "\(hostile)")
        }
    }

    @Test func originRefusalsMapToOneContract() {
        #expect(OriginRefusal(originStatus: 403, body: Array(#"{"error":true,"reason":"Wrong password"}"#.utf8))
            == OriginRefusal.expected(403, "Wrong password"))
        #expect(OriginRefusal(originStatus: 401, body: Array("unknown identifier".utf8)) == .expected(403, "unknown identifier", refusedCredentials: true))
        #expect(OriginRefusal(originStatus: 400, body: Array("secret does not match the identifier".utf8))
            == .expected(403, "secret does not match the identifier", refusedCredentials: true))
        #expect(OriginRefusal(originStatus: 400, body: Array("bad\u{7}\nname  too short".utf8)) == .expected(400, "bad name too short"))
        #expect(OriginRefusal(originStatus: 404, body: Array("product not found".utf8)) == .expected(404, "product not found"))
        #expect(OriginRefusal(originStatus: 409, body: []) == .expected(409, "The origin refused the request (409)."))
        // Echoes of what the gateway sent are redacted, whole words only, after the mapping.
        #expect(OriginRefusal(originStatus: 400, body: Array("secret does not match the identifier".utf8), redacting: ["r", "e"])
            == .expected(403, "secret does not match the identifier", refusedCredentials: true))
        #expect(OriginRefusal(originStatus: 401, body: Array("unknown identifier 5e1e-aa (secret pw1234)".utf8), redacting: ["5e1e-aa", "pw1234"])
            == .expected(403, "unknown identifier [redacted] (secret [redacted])", refusedCredentials: true))
    }

    @Test func v2PatchesUseTheOriginsCurrentPrices() throws {
        let onlySale = try ProductPatch.decode(json: Array(#"{"password":"pw","discountedPrice":80}"#.utf8))
        #expect(onlySale.needsCurrentPrices(for: .v2) && onlySale.needsCurrentPrices(for: .v2b) && !onlySale.needsCurrentPrices(for: .v1))
        let body = try onlySale.originBody(for: .v2b, secret: "s", current: CurrentPrices(price: 100, salePrice: nil))
        #expect(String(decoding: body.bytes, as: UTF8.self) == #"{"discounted_price":20,"secret":"s"}"#)
        #expect(throws: ValidationFailure.self) {
            try onlySale.originBody(for: .v2, secret: "s", current: CurrentPrices(price: 50, salePrice: nil))
        }
        let onlyPrice = try ProductPatch.decode(json: Array(#"{"password":"pw","price":120}"#.utf8))
        #expect(onlyPrice.needsCurrentPrices(for: .v2))
        // The sale price stays 90: the amount grows with the price.
        let keep = try onlyPrice.originBody(for: .v2, secret: "s", current: CurrentPrices(price: 100, salePrice: 90))
        #expect(String(decoding: keep.bytes, as: UTF8.self) == #"{"price":120,"discounted_price":30,"secret":"s"}"#)
        let none = try onlyPrice.originBody(for: .v2, secret: "s", current: CurrentPrices(price: 100, salePrice: nil))
        #expect(String(decoding: none.bytes, as: UTF8.self) == #"{"price":120,"discounted_price":0,"secret":"s"}"#)
        let cheaper = try ProductPatch.decode(json: Array(#"{"password":"pw","price":50}"#.utf8))
        #expect(throws: ValidationFailure([FieldError(
            field: "discountedPrice", message: "The product's sale price, 90, is above the new price: send discountedPrice too.")])) {
            try cheaper.originBody(for: .v2, secret: "s", current: CurrentPrices(price: 100, salePrice: 90))
        }
        let both = try ProductPatch.decode(json: Array(#"{"password":"pw","price":50,"discountedPrice":40}"#.utf8))
        #expect(!both.needsCurrentPrices(for: .v2))
    }
}

extension OriginRefusal {
    static func expected(_ status: Int, _ detail: String, refusedCredentials: Bool = false) -> OriginRefusal {
        var refusal = OriginRefusal(originStatus: status, body: [])
        refusal.status = status
        refusal.detail = detail
        refusal.refusedCredentials = refusedCredentials
        return refusal
    }
}
