import Foundation

/// Unpadded base64url (RFC 4648 §5), strict: what signed image URLs and bearer tokens (JWS
/// compact serialisation, RFC 7515 §2) are made of.
public enum Base64URL {
    /// `bytes` as unpadded base64url.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }

    /// Unpadded base64url to bytes; nil for an empty text, any other character (padding and
    /// whitespace included), an impossible length, or non-zero bits left over, so each byte
    /// string has exactly one encoding (a token cannot be altered without changing its bytes).
    @inlinable
    public static func decode<Text: Collection<UInt8>>(_ text: Text) -> [UInt8]? {
        guard !text.isEmpty, text.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for character in text {
            let value = sextet(character)
            guard value < 64 else { return nil }
            buffer = buffer << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        return buffer == 0 ? bytes : nil
    }

    @usableFromInline
    static func sextet(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "-"): 62
        case UInt8(ascii: "_"): 63
        default: 64
        }
    }
}
