import GatewayModels
import Testing
import TestSupport

@Suite struct StockLabelTests {
    @Test func korean() {
        #expect(StockLabel.text(stock: 12, locale: .koKR) == "잔여수량: 12")
        #expect(StockLabel.text(stock: 1_000_000_000_000, locale: .koKR) == "잔여수량: 1,000,000,000,000")
        #expect(StockLabel.text(stock: 0, locale: .koKR) == "품절")
    }

    @Test func english() {
        #expect(StockLabel.text(stock: 12, locale: .enUS) == "12 in stock")
        #expect(StockLabel.text(stock: 1234, locale: .enUS) == "1,234 in stock")
        #expect(StockLabel.text(stock: 0, locale: .enUS) == "Sold out")
        #expect(StockLabel.text(stock: -3, locale: .enUS) == "Sold out")
    }

    @Test func countsAreGroupedExactlyOnSeededValues() {
        var generator = SeededGenerator(seed: 5)
        for _ in 0..<1000 {
            let count = Int64.random(in: 1...Int64.max, using: &generator)
            let digits = String(count)
            var grouped = ""
            for (index, character) in digits.enumerated() {
                if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
                grouped.append(character)
            }
            #expect(StockLabel.text(stock: count, locale: .enUS) == "\(grouped) in stock")
        }
    }
}
