import Foundation
import GatewayModels
import Testing

@Suite struct ISO4217Tests {
    @Test func knownCodesAndMinorUnits() {
        #expect(ISO4217.minorUnits["KRW"] == 0)
        #expect(ISO4217.minorUnits["JPY"] == 0)
        #expect(ISO4217.minorUnits["USD"] == 2)
        #expect(ISO4217.minorUnits["BHD"] == 3)
        #expect(ISO4217.minorUnits["CLF"] == 4)
        #expect(ISO4217.isValid("KRW"))
        #expect(!ISO4217.isValid("krw"))
        #expect(!ISO4217.isValid("XAU"))
        #expect(!ISO4217.isValid("HRK"))
        #expect(!ISO4217.isValid("$"))
    }

    @Test func everyCodeIsKnownToICU() {
        let icu = Set(Locale.Currency.isoCurrencies.map(\.identifier))
        for code in ISO4217.minorUnits.keys {
            #expect(icu.contains(code), "\(code)")
        }
    }
}
