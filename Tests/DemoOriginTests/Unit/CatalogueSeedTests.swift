@testable import DemoOrigin
import Foundation
import GatewayModels
import Testing
import GatewaySupport

@Suite struct CatalogueSeedTests {
    @Test func embeddedSamplesAreTheFixturesByteForByte() throws {
        #expect(SeedSamples.itemsPage == (try SampleFiles.text("v1-items-page.json")))
        #expect(SeedSamples.item == (try SampleFiles.text("v1-item.json")))
    }

    @Test func seedHas127ItemsOverSevenPages() {
        let items = CatalogueSeed.items()
        #expect(items.count == 127)
        #expect(items.map(\.id) == Array(1...127))
        #expect(items == CatalogueSeed.items())
        let catalogue = Catalogue()
        catalogue.replace(with: items)
        #expect((1...8).map { catalogue.page($0).count } == [20, 20, 20, 20, 20, 20, 7, 0])
        #expect(catalogue.page(7).first?.id == 121)
    }

    @Test func sampleItemsKeepTheCapturedValues() throws {
        let items = CatalogueSeed.items()
        let first = items[0]
        #expect(first.title == "MacBook Pro")
        #expect(first.price == 1690)
        #expect(first.currency == "USD")
        #expect(first.stock == 0)
        #expect(first.registrationDate == Decimal(string: "1611523563.7237701"))
        #expect(first.images.count == 2)
        #expect(first.descriptions.hasPrefix("Apple M1 칩은 13형 MacBook Pro에"))
        #expect(items[2].discountedPrice == 89000)
        #expect(items[1].stock == 1_000_000_000_000)
        #expect(items[3].descriptions == "iPad Pro: Open Market 데모 카탈로그의 상품입니다.")
        #expect(items.allSatisfy { $0.password == "password" })
    }

    @Test func generatedItemsAreExact() {
        let items = CatalogueSeed.items()
        #expect(items[20] == DemoItem(
            id: 21, title: "무선 키보드 1세대", descriptions: "무선 키보드 1세대: 오픈 마켓 데모 상품입니다. 매일 쓰기 좋은 튼튼한 제품입니다.",
            price: 5000, currency: "KRW", stock: 1, registrationDate: Decimal(string: "1622505600.123457")!,
            password: "password", images: [.photo(.landscape)]))
        #expect(items[21] == DemoItem(
            id: 22, title: "캠핑 의자 1세대", descriptions: "캠핑 의자 1세대: 오픈 마켓 데모 상품입니다. 매일 쓰기 좋은 튼튼한 제품입니다.",
            price: 315_000, currency: "KRW", stock: 38, discountedPrice: 252_000,
            registrationDate: Decimal(string: "1622592061.131376")!, password: "password", images: [.photo(.rotatedPortrait), .generated]))
        // Photo-sized first pictures: the first four of v1's page 2 and of v2's page 1.
        #expect(items.filter { if case .photo = $0.images[0] { true } else { false } }.map(\.id) == [21, 22, 23, 24, 124, 125, 126, 127])
        #expect(items.flatMap(\.images).filter { if case .photo = $0 { true } else { false } }.count == 8)
    }

    @Test func everyFifthItemBelongsToVendorTwo() {
        let items = CatalogueSeed.items()
        #expect(items.filter { $0.vendorID == 2 }.map(\.id) == Array(stride(from: 5, through: 125, by: 5)))
        #expect(items.filter { $0.vendorID == 1 }.count == 102)
        #expect(DemoVendor.demo.map(\.id) == [1, 2])
        #expect(Set(DemoVendor.demo.map(\.identifier)).count == 2)
    }

    @Test func seedCoversCurrenciesDiscountsStockAndLanguages() {
        let items = CatalogueSeed.items()
        #expect(Set(items.map(\.currency)) == ["KRW", "USD", "JPY", "BHD"])
        #expect(items.filter { $0.discountedPrice != nil }.count == 4 + 27)
        #expect(items.filter { $0.stock == 0 }.count >= 10)
        #expect(items.filter { $0.stock == 1_000_000_000_000 }.count >= 5)
        #expect(items.contains { $0.title.unicodeScalars.contains { (0xAC00...0xD7A3).contains($0.value) } })
        #expect(items.contains { $0.title.hasSuffix("Gen 1") })
        #expect(Set(items.map(\.images.count)) == [1, 2, 3, 4, 5])
        // A BHD price with three decimals, a USD price with cents.
        #expect(items.contains { $0.currency == "BHD" && DecimalText.json($0.price).split(separator: ".").last?.count == 3 })
        #expect(items.contains { $0.currency == "USD" && DecimalText.json($0.price).hasSuffix(".99") })
        // Every registration date has a fraction.
        #expect(items.allSatisfy { DecimalText.int64($0.registrationDate) == nil })
        // Sale prices are below their prices and in the currency's minor unit.
        for item in items { if let sale = item.discountedPrice { #expect(sale < item.price, "\(item.id)") } }
    }
}
