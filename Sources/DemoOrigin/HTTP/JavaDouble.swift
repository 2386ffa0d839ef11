import Foundation
import GatewayModels
import GatewaySupport

/// Numbers as Java's `Double.toString` prints them, which is what the v2/v2b server
/// (Spring/Jackson, prices held as `double`) wrote: always a `.` and a digit after it
/// (`2000.0`, `0.0`, `12.5`), plain from 10⁻³ up to but not including 10⁷ (`9999999.0`),
/// computerized scientific notation outside that (`1.0E7`, `1.23123123E8`, `1.0E-4`), with
/// the fewest digits that read back as the same `Double` (JDK 19 and later; older JDKs
/// occasionally printed one digit more).
enum JavaDouble {
    /// `value` as Java prints it; `NaN`, `Infinity`, `-Infinity` for the non-finite values.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "NaN" : value < 0 ? "-Infinity" : "Infinity" }
        let sign = value.sign == .minus ? "-" : ""
        let magnitude = abs(value)
        guard magnitude != 0 else { return sign + "0.0" }
        let (digits, exponent) = shortestDigits(magnitude)
        if magnitude >= 1e-3 && magnitude < 1e7 {
            if exponent < 0 {
                return sign + "0." + String(repeating: "0", count: -exponent - 1) + digits
            }
            let integerCount = exponent + 1
            let integer = digits.count >= integerCount
                ? String(digits.prefix(integerCount)) : digits + String(repeating: "0", count: integerCount - digits.count)
            let fraction = digits.count > integerCount ? String(digits.dropFirst(integerCount)) : "0"
            return sign + integer + "." + fraction
        }
        let fraction = digits.count > 1 ? String(digits.dropFirst()) : "0"
        return sign + String(digits.prefix(1)) + "." + fraction + "E" + String(exponent)
    }

    /// The exact decimal `value` turned into the nearest `Double`, then printed as Java does.
    static func format(_ value: Decimal) -> String {
        format(Double(DecimalText.json(value)) ?? 0)
    }

    /// The shortest round-tripping significant digits of a positive finite `value` (no
    /// leading or trailing zeros) and the power of ten of the first one: 123123123 →
    /// ("123123123", 8), 0.001 → ("1", -3). Read from Swift's own shortest printing
    /// (`123123123.0`, `1e-05`, `1.5e+16`).
    static func shortestDigits(_ value: Double) -> (digits: String, exponent: Int) {
        let text = "\(value)"
        let parts = text.split(separator: "e", maxSplits: 1)
        let mantissa = parts[0]
        let power = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
        let pieces = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        var digits = Array(pieces[0].utf8) + (pieces.count > 1 ? Array(pieces[1].utf8) : [])
        var pointAfter = pieces[0].utf8.count
        while digits.first == UInt8(ascii: "0") {
            digits.removeFirst()
            pointAfter -= 1
        }
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        return (String(decoding: digits, as: UTF8.self), pointAfter - 1 + power)
    }
}
