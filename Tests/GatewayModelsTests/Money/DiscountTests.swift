import Foundation
import GatewayModels
import Testing
import TestSupport

@Suite struct DiscountTests {
    @Test func rateIsFlooredNeverOverstated() throws {
        #expect(try #require(Discount(price: 890_000, salePrice: 89000)).rateText == "90%")
        #expect(try #require(Discount(price: 165, salePrice: 160)).rateText == "3%")
        #expect(try #require(Discount(price: 719, salePrice: 500)).rateText == "30%")
        #expect(try #require(Discount(price: 3, salePrice: 1)).rateText == "66%")
        #expect(try #require(Discount(price: 100, salePrice: 0)).rateText == "100%")
        #expect(try #require(Discount(price: 123_123, salePrice: 123_122)).rateText == "0%")
    }

    /// Found by the v2-page fuzz target (Tests/ModelsFuzz/Findings): a price past what
    /// `Decimal` can multiply by 101 looped for ever.
    @Test func pricesPastDecimalsProductsStillGetARate() throws {
        let huge = try #require(Decimal(string: "123123" + String(repeating: "0", count: 145)))
        #expect(try #require(Discount(price: huge, salePrice: 123_122)).rateText == "99%")
        #expect(try #require(Discount(price: huge, salePrice: 0)).rateText == "100%")
        #expect(try #require(Discount(price: huge, salePrice: huge / 2)).rateText == "50%")
        let pastRange = try #require(Decimal(string: "3" + String(repeating: "0", count: 163)))
        #expect(try #require(Discount(price: pastRange, salePrice: 1)).rateText == "99%")
    }

    @Test func notADiscount() {
        #expect(Discount(price: 100, salePrice: nil) == nil)
        #expect(Discount(price: 100, salePrice: 100) == nil)
        #expect(Discount(price: 100, salePrice: 101) == nil)
        #expect(Discount(price: 100, salePrice: -1) == nil)
        #expect(Discount(price: 0, salePrice: 0) == nil)
    }

    /// Property: with prices in minor units, the rate equals integer floor division.
    @Test func rateMatchesIntegerArithmeticOnSeededPrices() throws {
        var generator = SeededGenerator(seed: 11)
        for _ in 0..<5000 {
            let minorUnits = Int.random(in: 0...3, using: &generator)
            let price = Int64.random(in: 1...1_000_000_000_000, using: &generator)
            let sale = Int64.random(in: 0..<price, using: &generator)
            let scale = Decimal(sign: .plus, exponent: -minorUnits, significand: 1)
            let discount = try #require(Discount(price: Decimal(price) * scale, salePrice: Decimal(sale) * scale))
            #expect(discount.ratePercent == Int((price - sale) * 100 / price))
        }
    }
}
