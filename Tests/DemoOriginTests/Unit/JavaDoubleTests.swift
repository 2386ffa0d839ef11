@testable import DemoOrigin
import Foundation
import Testing

@Suite struct JavaDoubleTests {
    @Test(arguments: [
        (0.0, "0.0"), (2000.0, "2000.0"), (9_999_999.0, "9999999.0"), (10_000_000.0, "1.0E7"), (123_123_123.0, "1.23123123E8"),
        (12.5, "12.5"), (123_123.0, "123123.0"), (123_123_000.0, "1.23123E8"), (1.0, "1.0"), (0.001, "0.001"), (0.0001, "1.0E-4"),
        (0.5, "0.5"), (740.99, "740.99"), (1e16, "1.0E16"), (1.5e300, "1.5E300"), (-2.5, "-2.5"), (-0.0, "-0.0"), (-1e7, "-1.0E7"),
    ])
    func printsAsJavaDoubleToString(_ value: Double, _ expected: String) {
        #expect(JavaDouble.format(value) == expected)
    }

    @Test func decimalsGoThroughTheNearestDouble() {
        #expect(JavaDouble.format(Decimal(string: "83.25")!) == "83.25")
        #expect(JavaDouble.format(Decimal(string: "20.99")!) == "20.99")
        #expect(JavaDouble.format(Decimal(123_123_123)) == "1.23123123E8")
        #expect(JavaDouble.format(Decimal(0)) == "0.0")
    }

    @Test func shortestDigitsAndTheirPower() {
        #expect(JavaDouble.shortestDigits(123_123_123) == ("123123123", 8))
        #expect(JavaDouble.shortestDigits(0.001) == ("1", -3))
        #expect(JavaDouble.shortestDigits(1.5e-5) == ("15", -5))
        #expect(JavaDouble.shortestDigits(2000) == ("2", 3))
    }
}
