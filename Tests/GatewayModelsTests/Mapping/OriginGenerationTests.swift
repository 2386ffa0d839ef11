import Foundation
import GatewayModels
import Testing
import GatewaySupport

@Suite("OriginGeneration: every sample maps to the contract")
struct OriginGenerationTests {
    private static func page(_ generation: OriginGeneration, _ fixture: Fixture, page: Int = 1, locale: ClientLocale = .koKR) throws -> ProductPage {
        try generation.mapPage(bytes: fixture.bytes, page: page, locale: locale)
    }

    @Test func v1PageMapsEveryItem() throws {
        let page = try Self.page(.v1, .v1ItemsPage)
        #expect(page.page == 1)
        #expect(page.items.count == 20)
        #expect(page.items.map(\.id) == Array(1...20))
        #expect(page.hasNextPage == true)

        let macBookPro = page.items[0]
        #expect(macBookPro.title == "MacBook Pro")
        #expect(macBookPro.price == 1690)
        #expect(macBookPro.currency == "USD")
        #expect(macBookPro.discountedPrice == nil)
        #expect(macBookPro.stock == 0)
        #expect(macBookPro.isSoldOut)
        #expect(macBookPro.registeredAt == "2021-01-24T21:26:03Z")
        #expect(macBookPro.thumbnails == [
            "https://camp-open-market.s3.ap-northeast-2.amazonaws.com/thumbnails/1-1.png",
            "https://camp-open-market.s3.ap-northeast-2.amazonaws.com/thumbnails/1-2.png",
        ])
        #expect(macBookPro.display == ProductDisplay(price: "USD 1,690.00", discountedPrice: nil, discountRate: nil, stock: "품절"))

        let macBookAir = page.items[1]
        #expect(macBookAir.stock == 1_000_000_000_000)
        #expect(macBookAir.display.price == "KRW 1,290,000")
        #expect(macBookAir.display.stock == "잔여수량: 1,000,000,000,000")
        #expect(macBookAir.registeredAt == "2021-01-24T21:26:03Z")
    }

    @Test func v1DiscountedPriceIsTheSalePrice() throws {
        let items = try Self.page(.v1, .v1ItemsPage).items
        let discounted = items.filter { $0.discountedPrice != nil }
        #expect(discounted.map(\.id) == [3, 5, 8, 14])
        #expect(discounted.map(\.discountedPrice) == [89000, 160, 500, 70000])
        #expect(discounted.map(\.display.discountRate) == ["90%", "3%", "30%", "6%"])
        #expect(discounted.map(\.display.discountedPrice) == ["KRW 89,000", "USD 160.00", "USD 500.00", "KRW 70,000"])
        #expect(items.filter { $0.discountedPrice == nil }.allSatisfy { $0.display.discountRate == nil && $0.display.discountedPrice == nil })
    }

    @Test func v1PageInEnglish() throws {
        let items = try Self.page(.v1, .v1ItemsPage, locale: .enUS).items
        #expect(items[0].display.stock == "Sold out")
        #expect(items[1].display.stock == "1,000,000,000,000 in stock")
        #expect(items[1].display.price == "KRW 1,290,000")
        #expect(items[2].display == ProductDisplay(price: "KRW 890,000", discountedPrice: "KRW 89,000", discountRate: "90%", stock: "90 in stock"))
        #expect(items[18].display.price == "USD 6,499.00")
    }

    @Test func v1DetailRenamesDescriptions() throws {
        let detail = try OriginGeneration.v1.mapDetail(bytes: Fixture.v1Item.bytes, locale: .koKR)
        #expect(detail.summary.id == 1)
        #expect(detail.summary.title == "MacBook Pro")
        #expect(detail.description.hasPrefix("Apple M1 칩은 13형 MacBook Pro에"))
        #expect(detail.description.contains("\n최대 2.8배"))
        #expect(detail.summary.price == 1_690_000)
        #expect(detail.summary.display.price == "KRW 1,690,000")
        #expect(detail.summary.discountedPrice == nil)
        #expect(detail.summary.registeredAt == "2021-01-24T21:26:03Z")
        #expect(detail.images == [
            "https://camp-open-market.s3.ap-northeast-2.amazonaws.com/images/1-1.png",
            "https://camp-open-market.s3.ap-northeast-2.amazonaws.com/images/1-2.png",
        ])
    }

    @Test func v2PageReadsFloatsAndENotation() throws {
        let page = try Self.page(.v2, .v2ProductsPage)
        #expect(page.items.count == 15)
        #expect(page.hasNextPage == true)
        let first = page.items[0]
        #expect(first.id == 2094)
        #expect(first.title == "ㄴㄴㄴㄴㄴㄴ")
        #expect(first.price == 123_123)
        #expect(first.discountedPrice == 123_122)
        #expect(first.display.discountRate == "0%")
        #expect(first.registeredAt == "2022-05-13T15:00:00Z")
        #expect(first.thumbnails == ["https://s3.ap-northeast-2.amazonaws.com/media.yagom-academy.kr/training-resources/6/thumb/ef2a5592d33111ec9676d7a49354f5e5.jpg"])

        let eNotation = try #require(page.items.first { $0.id == 2085 })
        #expect(eNotation.price == 123_123_123)
        #expect(eNotation.discountedPrice == 123_123_000)
        #expect(eNotation.display.price == "USD 123,123,123.00")
        #expect(eNotation.display.discountedPrice == "USD 123,123,000.00")
        #expect(eNotation.display.discountRate == "0%")
        #expect(String(decoding: eNotation.jsonBytes(), as: UTF8.self).contains("\"price\":123123123,\"discountedPrice\":123123000,"))

        let notDiscounted = try #require(page.items.first { $0.id == 2093 })
        #expect(notDiscounted.discountedPrice == nil)
        #expect(notDiscounted.display.discountRate == nil)

        let eighteen = try #require(page.items.first { $0.id == 2084 })
        #expect(eighteen.discountedPrice == 100)
        #expect(eighteen.display.discountRate == "18%")
        #expect(eighteen.isSoldOut)
        #expect(eighteen.display.stock == "품절")
    }

    @Test func v2DetailMapsImagesAndThumbnail() throws {
        let detail = try OriginGeneration.v2.mapDetail(bytes: Fixture.v2Product.bytes, locale: .enUS)
        #expect(detail.summary.id == 16)
        #expect(detail.summary.title == "팥빙수")
        #expect(detail.summary.price == 2000)
        #expect(detail.summary.discountedPrice == nil)
        #expect(detail.summary.isSoldOut)
        #expect(detail.summary.display == ProductDisplay(price: "KRW 2,000", discountedPrice: nil, discountRate: nil, stock: "Sold out"))
        #expect(detail.summary.registeredAt == "2022-01-02T15:00:00Z")
        #expect(detail.summary.thumbnails == ["https://s3.ap-northeast-2.amazonaws.com/media.yagom-academy.kr/training-resources/2/thumb/8279f1c16c6111ecbf33d51698ab7ead.png"])
        #expect(detail.images == ["https://s3.ap-northeast-2.amazonaws.com/media.yagom-academy.kr/training-resources/2/origin/8279f1c16c6111ecbf33d51698ab7ead.png"])
        #expect(detail.description == "")
    }

    @Test func v2bPageReadsCamelCasePaginationAndTakesTheRequestedRows() throws {
        let page = try Self.page(.v2b, .v2bProductsPage, page: 3)
        #expect(page.page == 3)
        #expect(page.hasNextPage == true)
        // 60 rows [0, limit) came back for offset 40: the page is rows 40..<60.
        #expect(page.items.count == 20)
        #expect(page.items.first?.id == 70)
        #expect(page.items.last?.id == 41)
        #expect(page.items.first?.title == "app test")
        #expect(page.items.first?.display.price == "KRW 0")
        #expect(page.items.first?.discountedPrice == nil)
        #expect(page.items.first?.registeredAt == "2022-10-23T15:00:00Z")
    }

    @Test func v2bItemsMapDiscountsAndFractions() throws {
        let origin = try JSONDecoder().decode(V2ProductsPage.self, from: Data(Fixture.v2bProductsPage.bytes))
        #expect(origin.pageNo == 3)
        #expect(origin.itemsPerPage == 20)
        #expect(origin.pages.count == 60)
        #expect(origin.pages[0].vendorName == "OmarketTeam")
        let airPods = try OriginGeneration.v2b.mapDetail(bytes: Self.productJSON(id: 130, in: .v2bProductsPage), locale: .koKR)
        #expect(airPods.summary.title == "에어팟 3")
        #expect(airPods.summary.discountedPrice == 10000)
        #expect(airPods.summary.display == ProductDisplay(price: "KRW 20,000", discountedPrice: "KRW 10,000", discountRate: "50%", stock: "잔여수량: 3"))
        #expect(airPods.description == "에어팟 3")
        let fraction = try OriginGeneration.v2b.mapDetail(bytes: Self.productJSON(id: 106, in: .v2bProductsPage), locale: .enUS)
        #expect(fraction.summary.price == Decimal(string: "2.36"))
        #expect(fraction.summary.discountedPrice == Decimal(string: "1.65"))
        #expect(fraction.summary.display == ProductDisplay(price: "USD 2.36", discountedPrice: "USD 1.65", discountRate: "30%", stock: "7 in stock"))
        #expect(String(decoding: fraction.jsonBytes(), as: UTF8.self).contains("\"price\":2.36,\"discountedPrice\":1.65,"))
        let grouped = try OriginGeneration.v2b.mapDetail(bytes: Self.productJSON(id: 115, in: .v2bProductsPage), locale: .koKR)
        #expect(grouped.summary.display.stock == "잔여수량: 1,234,567")
        #expect(grouped.summary.display.discountRate == "5%")
    }

    @Test func v2bDetail() throws {
        let detail = try OriginGeneration.v2b.mapDetail(bytes: Fixture.v2bProduct.bytes, locale: .koKR)
        #expect(detail.summary.id == 32)
        #expect(detail.summary.title == "우유병 텀블러")
        #expect(detail.summary.price == 3500)
        #expect(detail.summary.discountedPrice == 3400)
        #expect(detail.summary.display == ProductDisplay(price: "KRW 3,500", discountedPrice: "KRW 3,400", discountRate: "2%", stock: "잔여수량: 2"))
        #expect(detail.summary.registeredAt == "2022-10-17T15:00:00Z")
        #expect(detail.images.count == 2)
        #expect(detail.images[1] == "https://s3.ap-northeast-2.amazonaws.com/media.yagom-academy.kr/training-resources/15/20221018/956d84f94f1a11eda2009d4c2abd0743_origin")
        #expect(detail.summary.thumbnails == ["https://s3.ap-northeast-2.amazonaws.com/media.yagom-academy.kr/training-resources/15/20221018/951468784f1a11eda200131c69255928_thumb"])
        #expect(detail.description.hasPrefix("하얀 우유병 모양의 텀블러!"))
    }

    @Test func imageHookRewritesEveryURL() throws {
        let hook: ImageURLRewriter = { "/v1/images/" + String($0.split(separator: "/").last ?? "") }
        let detail = try OriginGeneration.v1.mapDetail(bytes: Fixture.v1Item.bytes, locale: .koKR, imageURL: hook)
        #expect(detail.summary.thumbnails == ["/v1/images/1-1.png", "/v1/images/1-2.png"])
        #expect(detail.images == ["/v1/images/1-1.png", "/v1/images/1-2.png"])
        let page = try OriginGeneration.v2.mapPage(bytes: Fixture.v2ProductsPage.bytes, page: 1, locale: .koKR, imageURL: hook)
        #expect(page.items[0].thumbnails == ["/v1/images/ef2a5592d33111ec9676d7a49354f5e5.jpg"])
    }

    @Test func theSameProductComesOutTheSameFromEveryGeneration() throws {
        let v1 = #"{"id":7,"title":"우유","descriptions":"d","price":16.9,"currency":"USD","stock":12,"discounted_price":15.21,"thumbnails":["t"],"images":["i"],"registration_date":1667487600.5}"#
        let v2 = #"{"id":7,"vendor_id":1,"name":"우유","description":"d","thumbnail":"t","currency":"USD","price":1.69E1,"bargain_price":15.21,"discounted_price":1.69,"stock":12,"created_at":"2022-11-04T00:00:00.50","issued_at":"2022-11-04T00:00:00.50","images":[{"id":1,"url":"i","thumbnail_url":"t","succeed":true,"issued_at":"x"}]}"#
        let v2b = #"{"id":7,"vendor_id":1,"vendorName":"v","name":"우유","description":"d","thumbnail":"t","currency":"USD","price":16.90,"bargain_price":15.21,"discounted_price":1.69,"stock":12,"created_at":"2022-11-04T00:00:00.5","issued_at":"2022-11-04T00:00:00","images":[{"id":1,"url":"i","thumbnail_url":"t","issued_at":"x"}]}"#
        let details = try [(OriginGeneration.v1, v1), (.v2, v2), (.v2b, v2b)].map { generation, body in
            try generation.mapDetail(bytes: body.bytes, locale: .enUS)
        }
        // Only what v1 cannot know differs: the vendor, and each image's own thumbnail.
        #expect(details.map(\.summary.vendor) == [nil, ProductVendor(id: 1, name: nil), ProductVendor(id: 1, name: "v")])
        #expect(details.map(\.imageThumbnails) == [[nil], ["t"], ["t"]])
        let same = details.map { detail in
            var detail = detail
            detail.summary.vendor = nil
            detail.imageThumbnails = [nil]
            return detail
        }
        #expect(same[0] == same[1])
        #expect(same[1] == same[2])
        let json = String(decoding: details[0].jsonBytes(), as: UTF8.self)
        #expect(json == #"{"id":7,"title":"우유","description":"d","price":16.9,"discountedPrice":15.21,"currency":"USD","stock":12,"isSoldOut":false,"thumbnails":["t"],"images":["i"],"imageThumbnails":[null],"registeredAt":"2022-11-03T15:00:00Z","vendor":null,"display":{"price":"USD 16.90","discountedPrice":"USD 15.21","discountRate":"10%","stock":"12 in stock"}}"#)
    }

    @Test func aDiscountNotBelowThePriceIsNoDiscount() throws {
        let v1 = #"{"page":1,"items":[{"id":1,"title":"a","price":100,"currency":"KRW","stock":1,"discounted_price":100,"thumbnails":[],"registration_date":0},{"id":2,"title":"b","price":100,"currency":"KRW","stock":1,"discounted_price":150,"thumbnails":[],"registration_date":0}]}"#
        let page = try OriginGeneration.v1.mapPage(bytes: v1.bytes, page: 1, locale: .koKR)
        #expect(page.items.allSatisfy { $0.discountedPrice == nil && $0.display.discountedPrice == nil && $0.display.discountRate == nil })
        #expect(page.items[0].registeredAt == "1970-01-01T00:00:00Z")
        #expect(page.hasNextPage == false)
    }

    @Test func malformedOriginBodiesThrowOriginResponseError() {
        #expect(throws: OriginResponseError.self) { try OriginGeneration.v1.mapPage(bytes: Fixture.v1Error.bytes, page: 1, locale: .koKR) }
        #expect(throws: OriginResponseError.self) { try OriginGeneration.v2.mapDetail(bytes: "not json".bytes, locale: .koKR) }
        let badDate = #"{"pages":[{"id":1,"name":"a","thumbnail":"t","currency":"KRW","price":1,"bargain_price":1,"discounted_price":0,"stock":1,"created_at":"yesterday"}]}"#
        do {
            _ = try OriginGeneration.v2b.mapPage(bytes: badDate.bytes, page: 1, locale: .koKR)
            Issue.record("expected an error")
        } catch {
            #expect(error.generation == .v2b)
            #expect(error.reason.contains("yesterday"))
        }
    }

    @Test func pageJSONIsDeterministicBytes() throws {
        let first = try OriginGeneration.v1.pageJSON(bytes: Fixture.v1ItemsPage.bytes, page: 1, locale: .koKR)
        let second = try OriginGeneration.v1.pageJSON(bytes: Fixture.v1ItemsPage.bytes, page: 1, locale: .koKR)
        #expect(first == second)
        let text = String(decoding: first, as: UTF8.self)
        #expect(text.hasPrefix(#"{"page":1,"items":[{"id":1,"title":"MacBook Pro","price":1690,"discountedPrice":null,"currency":"USD","stock":0,"isSoldOut":true,"thumbnails":["#))
        #expect(text.hasSuffix(#"],"hasNextPage":true}"#))
        let english = try OriginGeneration.v1.pageJSON(bytes: Fixture.v1ItemsPage.bytes, page: 1, locale: .enUS)
        #expect(english != first)
    }

    /// One product of a list fixture as a detail body.
    /// Spliced from the original text: re-serialising would turn `2.36` into a `Double`.
    private static func productJSON(id: Int, in fixture: Fixture) throws -> [UInt8] {
        let text = String(decoding: fixture.bytes, as: UTF8.self)
        let marker = "\"id\": \(id),"
        let start = text.range(of: marker)!.lowerBound
        let open = text[..<start].lastIndex(of: "{")!
        let close = text[start...].firstIndex(of: "}")!
        return Array(text[open...close].utf8)
    }
}
