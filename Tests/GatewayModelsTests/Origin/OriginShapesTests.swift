import Foundation
import GatewayModels
import Testing
import GatewaySupport

/// The origin shapes decode straight from every sample, with exact numbers.
@Suite struct OriginShapesTests {
    private func decode<T: Decodable>(_ type: T.Type, _ fixture: Fixture) throws -> T {
        try JSONDecoder().decode(type, from: Data(fixture.bytes))
    }

    @Test func v1() throws {
        let page = try decode(V1ItemsPage.self, .v1ItemsPage)
        #expect(page.page == 1)
        #expect(page.items.count == 20)
        #expect(page.items[0].registrationDate == Decimal(string: "1611523563.7237701"))
        #expect(page.items[2].discountedPrice == 89000)
        #expect(page.items[0].discountedPrice == nil)
        #expect(page.items[0].descriptions == nil)
        let item = try decode(V1Item.self, .v1Item)
        #expect(item.stock == 1_000_000_000_000)
        #expect(item.images?.count == 2)
        let error = try decode(V1ErrorBody.self, .v1Error)
        #expect(error.error)
        #expect(error.reason == "The number of images must be 5 or less")
    }

    @Test func v2() throws {
        let page = try decode(V2ProductsPage.self, .v2ProductsPage)
        #expect(page.pageNo == 1)
        #expect(page.itemsPerPage == 15)
        #expect(page.totalCount == 1387)
        #expect(page.lastPage == 93)
        #expect(page.hasNext == true)
        #expect(page.hasPrev == false)
        let eNotation = try #require(page.pages.first { $0.id == 2085 })
        #expect(eNotation.price == 123_123_123)
        #expect(eNotation.bargainPrice == 123_123_000)
        #expect(eNotation.discountedPrice == 123)
        #expect(eNotation.vendorId == 14)
        let product = try decode(V2Product.self, .v2Product)
        #expect(product.images?.first?.thumbnailURL?.hasSuffix("thumb/8279f1c16c6111ecbf33d51698ab7ead.png") == true)
        #expect(product.createdAt == "2022-01-03T00:00:00.00")
    }

    @Test func v2b() throws {
        let page = try decode(V2ProductsPage.self, .v2bProductsPage)
        #expect(page.pageNo == 3)
        #expect(page.offset == 40)
        #expect(page.limit == 60)
        #expect(page.lastPage == 6)
        #expect(page.pages.count == 60)
        #expect(page.pages[0].vendorName == "OmarketTeam")
        #expect(page.pages[0].description == "에어팟 3")
        let fraction = try #require(page.pages.first { $0.id == 106 })
        #expect(fraction.price == Decimal(string: "2.36"))
        #expect(fraction.discountedPrice == Decimal(string: "0.71"))
        let product = try decode(V2Product.self, .v2bProduct)
        #expect(product.images?.map(\.id) == [35, 36])
        #expect(product.vendorName == nil)
    }

    @Test func numbersSentAsStringsAndWholeFloatsAreAccepted() throws {
        let body = #"{"id":"5","vendor_id":1.0,"name":"n","thumbnail":"t","currency":"KRW","price":"16.9","stock":3.0,"created_at":"2022-11-04T00:00:00"}"#
        let product = try JSONDecoder().decode(V2Product.self, from: Data(body.utf8))
        #expect(product.id == 5)
        #expect(product.price == Decimal(string: "16.9"))
        #expect(product.stock == 3)
        #expect(product.bargainPrice == nil)
        let bad = body.replacingOccurrences(of: #""stock":3.0"#, with: #""stock":3.5"#)
        #expect(throws: JSONShapeError(path: "$.stock", reason: "expected a 64-bit integer")) { try JSONDecoder().decode(V2Product.self, from: Data(bad.utf8)) }
        #expect(throws: JSONShapeError(path: "$.stock", reason: "expected a 64-bit integer")) { try V2Product(json: bad.utf8) }
    }
}
