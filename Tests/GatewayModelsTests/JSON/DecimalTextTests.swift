import Foundation
import GatewayModels
import Testing
import TestSupport
import GatewaySupport

@Suite struct DecimalTextTests {
    @Test(arguments: [
        ("16.9", "16.9"), ("16.90", "16.9"), ("1.23123123E8", "123123123"), ("1.23123E8", "123123000"),
        ("123123.0", "123123"), ("0.0", "0"), ("0", "0"), ("-2.5", "-2.5"), ("0.001", "0.001"),
        ("1611523563.7237701", "1611523563.7237701"), ("1000000000000", "1000000000000"),
        ("1e-5", "0.00001"), ("12345678901234567890.5", "12345678901234567890.5"),
    ])
    func jsonTextIsExact(input: String, expected: String) throws {
        let value = try #require(DecimalText.parse(input))
        #expect(DecimalText.json(value) == expected)
    }

    @Test(arguments: ["", " 1", "1 ", "+1", ".5", "5.", "1e", "12abc", "NaN", "0x10", "1,000", "--1"])
    func strictGrammarRejects(input: String) {
        #expect(DecimalText.parse(input) == nil)
    }

    @Test func fastPathMatchesDescriptionOnSeededValues() {
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<2000 {
            let digits = String(UInt64.random(in: 0...999_999_999_999_999_999, using: &generator))
            let exponent = Int.random(in: -20...12, using: &generator)
            let value = Decimal(string: "\(digits)E\(exponent)")!
            #expect(DecimalText.json(value) == value.description)
            #expect(Decimal(string: DecimalText.json(value)) == value)
        }
    }

    @Test func int64IsExactAndRejectsFractionsAndOverflow() {
        #expect(DecimalText.int64(Decimal(string: "1000000000000")!) == 1_000_000_000_000)
        #expect(DecimalText.int64(Decimal(string: "9223372036854775807")!) == Int64.max)
        #expect(DecimalText.int64(Decimal(string: "-9223372036854775808")!) == Int64.min)
        #expect(DecimalText.int64(Decimal(string: "9223372036854775808")!) == nil)
        #expect(DecimalText.int64(Decimal(string: "3.0")!) == 3)
        #expect(DecimalText.int64(Decimal(string: "3.5")!) == nil)
    }
}
