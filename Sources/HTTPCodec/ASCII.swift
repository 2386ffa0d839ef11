/// Byte classes of RFC 9110 and RFC 9112, as bit tables (no allocation, no branches).
package enum ASCII {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A
    static let semicolon: UInt8 = 0x3B
    static let comma: UInt8 = 0x2C

    /// tchar (RFC 9110 §5.6.2): `!#$%&'*+-.^_`|~`, digits and letters.
    private static let tokenLow: UInt64 = mask("!#$%&'*+-.0123456789", from: 0)
    private static let tokenHigh: UInt64 = mask("ABCDEFGHIJKLMNOPQRSTUVWXYZ^_`abcdefghijklmnopqrstuvwxyz|~", from: 64)

    static func isToken(_ byte: UInt8) -> Bool {
        if byte < 64 { return tokenLow >> UInt64(byte) & 1 == 1 }
        if byte < 128 { return tokenHigh >> UInt64(byte - 64) & 1 == 1 }
        return false
    }

    /// A byte of a field value (RFC 9110 §5.5): HTAB, SP, VCHAR and obs-text; never NUL, CR,
    /// LF, another control byte or DEL.
    static func isFieldValue(_ byte: UInt8) -> Bool {
        (byte >= 0x20 && byte != 0x7F) || byte == tab
    }

    /// A byte allowed in a request-target: visible ASCII (RFC 9112 §3.2 with RFC 3986; the
    /// router judges the characters further). Never a space, a control byte, DEL or a byte
    /// above 0x7E.
    static func isTarget(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F
    }

    static func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }

    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x61...0x66: byte - 0x61 + 10
        case 0x41...0x46: byte - 0x41 + 10
        default: nil
        }
    }

    package static func lower(_ byte: UInt8) -> UInt8 {
        byte &- 0x41 < 26 ? byte | 0x20 : byte
    }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    private static func mask(_ characters: StaticString, from base: UInt8) -> UInt64 {
        var mask: UInt64 = 0
        let start = characters.utf8Start
        for index in 0..<characters.utf8CodeUnitCount {
            mask |= 1 << UInt64(start[index] - base)
        }
        return mask
    }
}
