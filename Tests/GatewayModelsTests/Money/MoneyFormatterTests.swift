import Foundation
@testable import GatewayModels
import Testing
import TestSupport

@Suite struct MoneyFormatterTests {
    private func money(_ amount: String, _ currency: String, _ locale: ClientLocale) -> String {
        DisplayFormatters.money(currency: currency, locale: locale).string(Decimal(string: amount)!)
    }

    @Test func theIssuesExamples() {
        #expect(money("1290000", "KRW", .koKR) == "KRW 1,290,000")
        #expect(money("1690", "USD", .koKR) == "USD 1,690.00")
        #expect(money("1690", "USD", .enUS) == "USD 1,690.00")
        #expect(money("16.9", "USD", .enUS) == "USD 16.90")
        #expect(money("1234", "JPY", .enUS) == "JPY 1,234")
        #expect(money("1.5", "BHD", .enUS) == "BHD 1.500")
        #expect(money("1234.5678", "BHD", .koKR) == "BHD 1,234.568")
        #expect(money("0", "KRW", .koKR) == "KRW 0")
    }

    @Test func outputHasOnlyASCIISpaces() {
        let text = money("1290000", "KRW", .koKR)
        #expect(!text.unicodeScalars.contains { $0.value == 0xA0 || $0.value == 0x202F })
        #expect(text.unicodeScalars.map(\.value) == [0x4B, 0x52, 0x57, 0x20, 0x31, 0x2C, 0x32, 0x39, 0x30, 0x2C, 0x30, 0x30, 0x30])
    }

    @Test func moreFractionDigitsThanMinorUnitsRoundHalfEven() {
        #expect(money("16.995", "USD", .enUS) == "USD 17.00")
        #expect(money("16.985", "USD", .enUS) == "USD 16.98")
        #expect(money("0.5", "KRW", .koKR) == "KRW 0")
        #expect(money("1.5", "KRW", .koKR) == "KRW 2")
    }

    @Test func negativeAmountsFallBackToICU() {
        #expect(money("-5", "USD", .enUS) == DisplayFormatters.money(currency: "USD", locale: .enUS).icuString(-5))
    }

    @Test func unknownCodesPassThrough() {
        #expect(money("1000", "XYZ", .enUS) == "XYZ 1,000")
        #expect(money("16.9", "XYZ", .koKR) == "XYZ 16.9")
    }

    @Test func everyISOCurrencyUsesACheckedPatternInTheSupportedLocales() {
        for locale in [ClientLocale.koKR, .enUS] {
            for code in ISO4217.minorUnits.keys {
                #expect(DisplayFormatters.money(currency: code, locale: locale).usesPattern, "\(code) in \(locale)")
            }
        }
    }

    /// Property: for every ISO currency and seeded amounts with up to the currency's minor
    /// units, the output is exactly the reference string built from the decimal digits (so no
    /// binary-float artefact can appear), and exactly what ICU itself produces.
    @Test(arguments: [ClientLocale.koKR, .enUS])
    func formattingIsExactAcrossCurrenciesAndAmounts(locale: ClientLocale) {
        var generator = SeededGenerator(seed: 2026)
        for (code, minorUnits) in ISO4217.minorUnits.sorted(by: { $0.key < $1.key }) {
            let formatter = DisplayFormatters.money(currency: code, locale: locale)
            for _ in 0..<40 {
                let integer = UInt64.random(in: 0...(Bool.random(using: &generator) ? 999 : 999_999_999_999_999), using: &generator)
                let fraction = minorUnits == 0 ? "" : String((0..<minorUnits).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
                let text = fraction.isEmpty ? "\(integer)" : "\(integer).\(fraction)"
                let amount = Decimal(string: text)!
                let expected = "\(code) \(Self.grouped(String(integer)))" + (fraction.isEmpty ? "" : ".\(fraction)")
                let output = formatter.string(amount)
                #expect(output == expected)
                #expect(output == formatter.icuString(amount))
            }
        }
    }

    @Test func roundingAgreesWithICUOnSeededAmounts() {
        var generator = SeededGenerator(seed: 99)
        for code in ["USD", "KRW", "BHD", "JPY", "CLF", "EUR"] {
            for locale in [ClientLocale.koKR, .enUS] {
                let formatter = DisplayFormatters.money(currency: code, locale: locale)
                for _ in 0..<100 {
                    let amount = Decimal(string: "\(UInt32.random(in: 0...9_999_999, using: &generator)).\(UInt32.random(in: 0...99_999, using: &generator))")!
                    #expect(formatter.string(amount) == formatter.icuString(amount))
                }
            }
        }
    }

    @Test func patternHandlesOtherGroupingLayouts() throws {
        let indian = try #require(NumberPattern.derive(fractionDigits: 2) { value in
            SpaceNormalisation.normalise(Decimal.FormatStyle.Currency(code: "INR", locale: Locale(identifier: "en_IN")).presentation(.isoCode).precision(.fractionLength(2)).format(value))
        })
        #expect(indian.primaryGroup == 3)
        #expect(indian.secondaryGroup == 2)
        #expect(indian.format(Decimal(string: "12345678.5")!) == "INR 1,23,45,678.50")
        let french = try #require(NumberPattern.derive(fractionDigits: 2) { value in
            SpaceNormalisation.normalise(Decimal.FormatStyle.Currency(code: "EUR", locale: Locale(identifier: "fr_FR")).presentation(.isoCode).precision(.fractionLength(2)).format(value))
        })
        #expect(french.format(Decimal(string: "1234567.5")!) == "1 234 567,50 EUR")
    }

    @Test func formattersAreSharedAndSafeAcrossThreads() async {
        await withTaskGroup(of: String.self) { group in
            for index in 0..<64 {
                group.addTask {
                    DisplayFormatters.money(currency: index.isMultiple(of: 2) ? "KRW" : "USD", locale: index % 3 == 0 ? .enUS : .koKR)
                        .string(Decimal(index * 1000))
                }
            }
            var results: [String] = []
            for await result in group { results.append(result) }
            #expect(results.count == 64)
            #expect(results.contains("KRW 62,000"))
            #expect(results.contains("USD 63,000.00"))
        }
    }

    private static func grouped(_ digits: String) -> String {
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return out
    }
}
