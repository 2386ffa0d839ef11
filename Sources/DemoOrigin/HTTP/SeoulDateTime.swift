import Foundation

/// The v2/v2b dates: zone-less local date-times in the server's zone, Asia/Seoul.
///
/// - v2 `yyyy-MM-dd'T'HH:mm:ss.SS`: `2022-05-14T09:30:12.34`
/// - v2b `yyyy-MM-dd'T'HH:mm:ss`: `2022-11-04T09:30:12`
///
/// The fraction is truncated, as `DateTimeFormatter` does.
enum SeoulDateTime {
    static let zone = TimeZone(identifier: "Asia/Seoul")!

    /// The instant `epochSeconds` (Unix seconds, any fraction) in Asia/Seoul, with
    /// `fractionDigits` digits of the second after a `.` (none and no `.` for 0).
    static func format(epochSeconds: Decimal, fractionDigits: Int) -> String {
        var scale: Int64 = 1
        for _ in 0..<fractionDigits { scale *= 10 }
        var scaled = epochSeconds * Decimal(scale)
        var floored = Decimal()
        NSDecimalRound(&floored, &scaled, 0, .down)
        let ticks = NSDecimalNumber(decimal: floored).int64Value
        let remainder = ticks % scale
        let seconds = ticks / scale - (remainder < 0 ? 1 : 0)
        let fraction = remainder < 0 ? remainder + scale : remainder
        let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(seconds)))
        var local = time_t(seconds + Int64(offset))
        var parts = tm()
        gmtime_r(&local, &parts)
        func padded(_ value: Int64, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        var text = padded(Int64(parts.tm_year) + 1900, 4) + "-" + padded(Int64(parts.tm_mon) + 1, 2) + "-"
            + padded(Int64(parts.tm_mday), 2) + "T" + padded(Int64(parts.tm_hour), 2) + ":" + padded(Int64(parts.tm_min), 2)
            + ":" + padded(Int64(parts.tm_sec), 2)
        if fractionDigits > 0 { text += "." + padded(fraction, fractionDigits) }
        return text
    }
}
