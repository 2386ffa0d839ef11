import Foundation

/// v1 `registration_date`: Unix epoch seconds with a microsecond fraction.
enum EpochSeconds {
    static func decimal(_ date: Date) -> Decimal {
        let micros = Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down))
        // Never a whole second: the v1 server always wrote a fraction.
        let adjusted = micros % 1_000_000 == 0 ? micros + 1 : micros
        return Decimal(sign: .plus, exponent: -6, significand: Decimal(adjusted))
    }

    static func date(_ seconds: Decimal) -> Date {
        Date(timeIntervalSince1970: NSDecimalNumber(decimal: seconds).doubleValue)
    }
}
