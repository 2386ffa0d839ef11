import Foundation

/// Exact conversions between decimal text and `Decimal`, never through `Double`.
public enum DecimalText {
    /// The JSON number text for `value`: plain digits, a `-` sign, at most one `.`; no exponent,
    /// no trailing fractional zeros (`Decimal(string: "123123.0")` gives `123123`).
    ///
    /// `Decimal.description` already has this form; a NaN (which JSON cannot carry) is written as `0`.
    /// Fast path: when the significand fits 18 digits (every price seen), the digits come from
    /// `Int64` text and the point is placed by the exponent; otherwise `Decimal.description`
    /// (several times slower) is used. Both give the same text (checked by the tests).
    public static func json(_ value: Decimal) -> String {
        if value.isNaN { return "0" }
        let exponent = value.exponent
        let significand = value.significand
        guard exponent >= -18, exponent <= 18, significand <= maxFastSignificand else { return value.description }
        var digits = String(NSDecimalNumber(decimal: significand).int64Value)
        if digits == "0" { return "0" }
        if exponent >= 0 {
            digits += String(repeating: "0", count: exponent)
        } else {
            let fractionCount = -exponent
            if digits.utf8.count <= fractionCount {
                digits = String(repeating: "0", count: fractionCount - digits.utf8.count + 1) + digits
            }
            digits.insert(".", at: digits.index(digits.endIndex, offsetBy: -fractionCount))
            while digits.hasSuffix("0") { digits.removeLast() }
            if digits.hasSuffix(".") { digits.removeLast() }
        }
        return value.sign == .minus ? "-" + digits : digits
    }

    private static let maxFastSignificand = Decimal(999_999_999_999_999_999 as Int64)

    /// Parses strict JSON-number grammar (`-?digits(.digits)?([eE][+-]?digits)?`) into a
    /// `Decimal`, exactly. Returns `nil` for anything else, including `Decimal(string:)`'s lenient
    /// prefixes (`"12abc"`), empty text, spaces, `+1`, `.5`, `NaN`, and values `Decimal` cannot hold.
    public static func parse<S: StringProtocol>(_ text: S) -> Decimal? {
        guard isJSONNumber(text.utf8) else { return nil }
        guard let value = Decimal(string: String(text), locale: Locale(identifier: "en_US_POSIX")),
              !value.isNaN else { return nil }
        return value
    }

    /// Whether `bytes` is exactly one JSON number.
    package static func isJSONNumber<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        var index = bytes.startIndex
        func peek() -> UInt8? { index < bytes.endIndex ? bytes[index] : nil }
        func digits() -> Int {
            var count = 0
            while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                count += 1
                index = bytes.index(after: index)
            }
            return count
        }
        if peek() == UInt8(ascii: "-") { index = bytes.index(after: index) }
        guard digits() > 0 else { return false }
        if peek() == UInt8(ascii: ".") {
            index = bytes.index(after: index)
            guard digits() > 0 else { return false }
        }
        if let byte = peek(), byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            index = bytes.index(after: index)
            if let sign = peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                index = bytes.index(after: index)
            }
            guard digits() > 0 else { return false }
        }
        return index == bytes.endIndex
    }

    /// `value` as an `Int64` when it is a whole number in range, else `nil`.
    public static func int64(_ value: Decimal) -> Int64? {
        guard !value.isNaN else { return nil }
        var source = value
        var whole = Decimal()
        NSDecimalRound(&whole, &source, 0, .plain)
        guard whole == value, value >= minInt64, value <= maxInt64 else { return nil }
        return NSDecimalNumber(decimal: whole).int64Value
    }

    private static let minInt64 = Decimal(Int64.min)
    private static let maxInt64 = Decimal(Int64.max)

    /// The greatest integer not above `value` (`floor`), computed in `Decimal`.
    package static func floor(_ value: Decimal) -> Decimal {
        var source = value
        var result = Decimal()
        NSDecimalRound(&result, &source, 0, .down)
        return result
    }
}
