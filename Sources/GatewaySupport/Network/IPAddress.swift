/// An IPv4 or IPv6 address as 128 bits, IPv4 as IPv4-mapped IPv6 (`::ffff:a.b.c.d`), read
/// strictly from text without allocating: for client addresses in `X-Forwarded-For` and for
/// `--trusted-proxies`.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The first and last 64 bits, in network order (`high` holds the /64 prefix).
    public let high: UInt64
    public let low: UInt64

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The IPv4 address `a.b.c.d` given as its 32 bits.
    public init(ipv4: UInt32) {
        high = 0
        low = 0x0000_FFFF_0000_0000 | UInt64(ipv4)
    }

    /// An IPv4 address (stored IPv4-mapped).
    public var isIPv4: Bool { high == 0 && low >> 32 == 0x0000_FFFF }

    /// Reads `text`: dotted-quad IPv4 (four decimal parts 0–255, no leading zeros), or IPv6
    /// (RFC 4291 §2.2: up to eight groups of 1–4 hex digits, one `::`, an IPv4 tail), without
    /// zone, brackets, port or spaces. Nil for anything else.
    public init?(_ text: UnsafeRawBufferPointer) {
        if let v4 = Self.parseIPv4(text, from: 0, to: text.count) {
            self.init(ipv4: v4)
        } else if let (high, low) = Self.parseIPv6(text) {
            self.init(high: high, low: low)
        } else {
            return nil
        }
    }

    /// ``init(_:)`` of a string (configuration, tests).
    public init?(_ text: String) {
        var text = text
        guard let address = text.withUTF8({ IPAddress(UnsafeRawBufferPointer($0)) }) else { return nil }
        self = address
    }

    /// Reads one entry of `X-Forwarded-For` as proxies write it: an address, optionally with
    /// a port (`1.2.3.4:80`, `[2001:db8::1]:80`) or in brackets, spaces and tabs around it
    /// ignored. Nil when it is no address.
    public static func forwarded(_ text: UnsafeRawBufferPointer) -> IPAddress? {
        var start = 0
        var end = text.count
        while start < end && (text[start] == 0x20 || text[start] == 0x09) { start += 1 }
        while end > start && (text[end - 1] == 0x20 || text[end - 1] == 0x09) { end -= 1 }
        guard start < end else { return nil }
        if text[start] == UInt8(ascii: "[") {
            // `[v6]` or `[v6]:port`.
            var close = start + 1
            while close < end && text[close] != UInt8(ascii: "]") { close += 1 }
            guard close < end, close + 1 == end || isPort(text, from: close + 1, to: end) else { return nil }
            guard let (high, low) = parseIPv6(UnsafeRawBufferPointer(rebasing: text[(start + 1)..<close])) else { return nil }
            return IPAddress(high: high, low: low)
        }
        if let v4 = parseIPv4(text, from: start, to: end) { return IPAddress(ipv4: v4) }
        // `a.b.c.d:port`: exactly one colon, after a dotted quad.
        var colon = start
        var colons = 0
        for index in start..<end where text[index] == UInt8(ascii: ":") {
            colon = index
            colons += 1
        }
        if colons == 1, isPort(text, from: colon, to: end), let v4 = parseIPv4(text, from: start, to: colon) {
            return IPAddress(ipv4: v4)
        }
        guard let (high, low) = parseIPv6(UnsafeRawBufferPointer(rebasing: text[start..<end])) else { return nil }
        return IPAddress(high: high, low: low)
    }

    /// `:` and 1–5 digits.
    private static func isPort(_ text: UnsafeRawBufferPointer, from colon: Int, to end: Int) -> Bool {
        guard text[colon] == UInt8(ascii: ":"), end - colon >= 2, end - colon <= 6 else { return false }
        return (colon + 1..<end).allSatisfy { text[$0] >= UInt8(ascii: "0") && text[$0] <= UInt8(ascii: "9") }
    }

    /// A dotted quad in `text[from..<to]`, or nil.
    static func parseIPv4(_ text: UnsafeRawBufferPointer, from: Int, to: Int) -> UInt32? {
        var value: UInt32 = 0
        var part: UInt32 = 0
        var digits = 0
        var parts = 0
        var index = from
        while index <= to {
            let byte: UInt8 = index < to ? text[index] : UInt8(ascii: ".")
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                // No leading zeros ("010" reads as octal elsewhere).
                if digits == 1 && part == 0 { return nil }
                part = part * 10 + UInt32(byte - UInt8(ascii: "0"))
                digits += 1
                guard digits <= 3, part <= 255 else { return nil }
            } else if byte == UInt8(ascii: ".") {
                guard digits > 0, parts < 4 else { return nil }
                value = value << 8 | part
                parts += 1
                part = 0
                digits = 0
            } else {
                return nil
            }
            index += 1
        }
        return parts == 4 ? value : nil
    }

    /// An IPv6 address filling `text`, or nil.
    static func parseIPv6(_ text: UnsafeRawBufferPointer) -> (UInt64, UInt64)? {
        let count = text.count
        guard count >= 2, count <= 45 else { return nil }
        var groups: (UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16) = (0, 0, 0, 0, 0, 0, 0, 0)
        var filled = 0
        var gap = -1
        var index = 0
        func set(_ position: Int, _ value: UInt16) {
            withUnsafeMutableBytes(of: &groups) { $0.storeBytes(of: value, toByteOffset: position * 2, as: UInt16.self) }
        }
        if text[0] == UInt8(ascii: ":") {
            guard text[1] == UInt8(ascii: ":") else { return nil }
            gap = 0
            index = 2
            if index == count { return (0, 0) }
        }
        while index < count {
            guard filled < 8 else { return nil }
            // An IPv4 tail takes the last two groups.
            var probe = index
            while probe < count && text[probe] != UInt8(ascii: ":") && text[probe] != UInt8(ascii: ".") { probe += 1 }
            if probe < count && text[probe] == UInt8(ascii: ".") {
                guard filled <= 6, let v4 = parseIPv4(text, from: index, to: count) else { return nil }
                set(filled, UInt16(v4 >> 16))
                set(filled + 1, UInt16(v4 & 0xFFFF))
                filled += 2
                index = count
                break
            }
            var value: UInt16 = 0
            var digits = 0
            while index < count, let digit = hex(text[index]) {
                guard digits < 4 else { return nil }
                value = value << 4 | UInt16(digit)
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            set(filled, value)
            filled += 1
            if index == count { break }
            guard text[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            if index < count && text[index] == UInt8(ascii: ":") {
                guard gap < 0 else { return nil }
                gap = filled
                index += 1
                if index == count { break }
            } else if index == count {
                // A trailing single colon.
                return nil
            }
        }
        var words = (UInt64(0), UInt64(0))
        let present = filled
        if gap < 0 {
            guard present == 8 else { return nil }
        } else {
            guard present < 8 else { return nil }
        }
        let values = withUnsafeBytes(of: &groups) { $0.bindMemory(to: UInt16.self) }
        for position in 0..<8 {
            let source: Int?
            if gap < 0 {
                source = position
            } else if position < gap {
                source = position
            } else if position >= 8 - (present - gap) {
                source = position - (8 - present)
            } else {
                source = nil
            }
            let value = UInt64(source.map { values[$0] } ?? 0)
            if position < 4 {
                words.0 |= value << (48 - 16 * UInt64(position))
            } else {
                words.1 |= value << (48 - 16 * UInt64(position - 4))
            }
        }
        return words
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The address as `inet_ntop` writes it for IPv4; IPv6 as eight uncompressed groups.
    public var description: String {
        if isIPv4 {
            let v4 = UInt32(truncatingIfNeeded: low)
            return "\(v4 >> 24).\(v4 >> 16 & 0xFF).\(v4 >> 8 & 0xFF).\(v4 & 0xFF)"
        }
        let groups = (0..<4).map { String(high >> (48 - 16 * UInt64($0)) & 0xFFFF, radix: 16) }
            + (0..<4).map { String(low >> (48 - 16 * UInt64($0)) & 0xFFFF, radix: 16) }
        return groups.joined(separator: ":")
    }
}
