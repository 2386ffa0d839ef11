import Foundation

/// Unpadded base64url (RFC 4648 §5), strict: what signed image URLs and bearer tokens (JWS
/// compact serialisation, RFC 7515 §2) are made of.
public enum Base64URL {
    /// `bytes` as unpadded base64url. Written byte by byte: every image URL in a mapped page
    /// is sealed and encoded with this, on the miss path (Foundation's base64 followed by
    /// `replacingOccurrences`, which it replaces, bridged through NSString and was most of a
    /// detail's mapping time).
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        let whole = input.count / 3
        let rest = input.count % 3
        let length = whole * 4 + (rest == 0 ? 0 : rest + 1)
        return String(unsafeUninitializedCapacity: length) { output in
            var written = 0
            func put(_ sextet: UInt32) {
                output[written] = character(UInt8(truncatingIfNeeded: sextet & 63))
                written += 1
            }
            var index = 0
            for _ in 0..<whole {
                let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                put(group >> 18)
                put(group >> 12)
                put(group >> 6)
                put(group)
                index += 3
            }
            if rest == 1 {
                let group = UInt32(input[index]) << 16
                put(group >> 18)
                put(group >> 12)
            } else if rest == 2 {
                let group = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8
                put(group >> 18)
                put(group >> 12)
                put(group >> 6)
            }
            return written
        }
    }

    /// The base64url character for `sextet` (0 to 63).
    static func character(_ sextet: UInt8) -> UInt8 {
        switch sextet {
        case 0..<26: UInt8(ascii: "A") + sextet
        case 26..<52: UInt8(ascii: "a") + sextet - 26
        case 52..<62: UInt8(ascii: "0") + sextet - 52
        case 62: UInt8(ascii: "-")
        default: UInt8(ascii: "_")
        }
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
