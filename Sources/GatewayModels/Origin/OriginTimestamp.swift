import Foundation
import GatewaySupport

/// The origin's timestamps, turned into milliseconds since the Unix epoch (UTC), and back out
/// as the contract's RFC 3339 text: UTC with whole seconds (`2021-01-24T21:26:03Z`), the form
/// that the platforms' default date decoders accept (`ISO8601DateFormatter` with its default
/// options, `JSONDecoder.DateDecodingStrategy.iso8601`, swift-openapi-runtime's default
/// transcoder; all refuse a fraction).
///
/// - v1: epoch seconds with a fraction (`1611523563.7237701`), floored to the millisecond in
///   `Decimal`, so no binary rounding can move it.
/// - v2/v2b: zone-less local date-times (`2022-05-14T00:00:00.00`, `2022-11-04T00:00:00`; a
///   space instead of `T` is accepted too) in the origin's zone, Asia/Seoul by default. A
///   trailing `Z` or `±hh:mm` is honoured when present. Fractions are truncated to milliseconds.
public enum OriginTimestamp {
    /// The origin's own zone: zone-less date-times are read in it.
    public static let originTimeZone = TimeZone(identifier: "Asia/Seoul")!

    /// The instants RFC 3339 can write with a four-digit year: 0000-01-01 to 9999-12-31.
    public static let representableMillis: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    /// floor(seconds × 1000), or `nil` outside ``representableMillis``.
    public static func millis(epochSeconds: Decimal) -> Int64? {
        guard let millis = DecimalText.int64(DecimalText.floor(epochSeconds * 1000)),
              representableMillis.contains(millis) else { return nil }
        return millis
    }

    /// Milliseconds for `yyyy-MM-dd'T'HH:mm:ss(.fraction)?(Z|±hh:mm)?`, or `nil` when the text does
    /// not have that form or names an impossible date.
    public static func millis(localDateTime text: String, timeZone: TimeZone = originTimeZone) -> Int64? {
        let b = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= b.count else { return nil }
            var value = 0
            for byte in b[start..<start + count] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard b.count >= 19, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "),
              b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        var millis = 0
        if index < b.count, b[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < b.count, b[index] >= 48, b[index] <= 57 {
                if digits < 3 { millis = millis * 10 + Int(b[index] - 48) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 3) { millis *= 10 }
        }
        let localSeconds = Int64(daysFromCivil(year: year, month: month, day: day)) * 86_400
            + Int64(hour * 3600 + minute * 60 + second)
        let offset: Int
        if index == b.count {
            // Guess with the zone's offset at the local time read as UTC, then correct once.
            let guess = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(localSeconds)))
            offset = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(localSeconds - Int64(guess))))
        } else if b[index] == UInt8(ascii: "Z"), index + 1 == b.count {
            offset = 0
        } else if b[index] == UInt8(ascii: "+") || b[index] == UInt8(ascii: "-"), b.count == index + 6,
                  b[index + 3] == UInt8(ascii: ":"), let h = number(index + 1, 2), let m = number(index + 4, 2) {
            offset = (b[index] == UInt8(ascii: "-") ? -1 : 1) * (h * 3600 + m * 60)
        } else {
            return nil
        }
        return (localSeconds - Int64(offset)) * 1000 + Int64(millis)
    }

    /// `2021-01-24T21:26:03Z` for the given milliseconds since the epoch: the second that holds
    /// the instant (milliseconds floored, so `-1` is `1969-12-31T23:59:59Z`), clamped to
    /// ``representableMillis``.
    public static func rfc3339(millis: Int64) -> String {
        let millis = min(max(millis, representableMillis.lowerBound), representableMillis.upperBound)
        let (seconds, _) = floorDivide(millis, 1000)
        let (days, secondOfDay) = floorDivide(seconds, 86_400)
        let (year, month, day) = civil(fromDays: days)
        let fields: [(value: Int64, width: Int, separator: UInt8)] = [
            (year, 4, UInt8(ascii: "-")), (month, 2, UInt8(ascii: "-")), (day, 2, UInt8(ascii: "T")),
            (secondOfDay / 3600, 2, UInt8(ascii: ":")), (secondOfDay / 60 % 60, 2, UInt8(ascii: ":")),
            (secondOfDay % 60, 2, UInt8(ascii: "Z")),
        ]
        return String(unsafeUninitializedCapacity: 20) { buffer in
            var position = 0
            for field in fields {
                var rest = field.value
                for offset in stride(from: field.width - 1, through: 0, by: -1) {
                    buffer[position + offset] = UInt8(48 + rest % 10)
                    rest /= 10
                }
                position += field.width
                buffer[position] = field.separator
                position += 1
            }
            return position
        }
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 (H. Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The inverse of `daysFromCivil` (H. Hinnant's `civil_from_days`).
    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (month <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, month, day)
    }
}
