/// The IMF-fixdate form of HTTP dates (RFC 9110 §5.6.7), from Unix time, without Foundation:
/// `Sun, 06 Nov 1994 08:49:37 GMT`.
public enum HTTPDate {
    /// The 29 bytes of the date for `secondsSinceEpoch` (UTC; seconds before 1970 are not
    /// supported and read as 1970).
    public static func bytes(secondsSinceEpoch: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(29)
        append(secondsSinceEpoch: secondsSinceEpoch, to: &out)
        return out
    }

    /// Appends the 29 bytes of the date to `out`.
    public static func append(secondsSinceEpoch: Int, to out: inout [UInt8]) {
        let seconds = max(0, secondsSinceEpoch)
        let days = seconds / 86_400
        let secondOfDay = seconds % 86_400
        // 1970-01-01 was a Thursday.
        let weekday = (days + 4) % 7
        let (year, month, day) = civil(fromDays: days)
        out.append(contentsOf: weekdays[weekday].utf8)
        out.append(contentsOf: ", ".utf8)
        twoDigits(day, &out)
        out.append(0x20)
        out.append(contentsOf: months[month - 1].utf8)
        out.append(0x20)
        twoDigits(year / 100, &out)
        twoDigits(year % 100, &out)
        out.append(0x20)
        twoDigits(secondOfDay / 3600, &out)
        out.append(0x3A)
        twoDigits(secondOfDay / 60 % 60, &out)
        out.append(0x3A)
        twoDigits(secondOfDay % 60, &out)
        out.append(contentsOf: " GMT".utf8)
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func twoDigits(_ value: Int, _ out: inout [UInt8]) {
        out.append(UInt8(0x30 + value / 10))
        out.append(UInt8(0x30 + value % 10))
    }

    /// Year, month (1–12) and day (1–31) of the proleptic Gregorian calendar for a count of
    /// days since 1970-01-01 (Howard Hinnant's days-to-civil algorithm, written anew).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
