/// HTTP/2 frames made by hand for tests that must send what no well-behaved client sends
/// (floods, resets, oversized header blocks): RFC 9113 §4.1 framing and RFC 7541 literal
/// header fields, written here byte by byte (no Huffman coding, lengths below 127 in one byte
/// plus continuation bytes as §5.1 says).
public enum HTTP2Frames {
    public static let preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    public enum FrameType: UInt8 {
        case data = 0, headers = 1, rstStream = 3, settings = 4, ping = 6, goaway = 7, windowUpdate = 8, continuation = 9
    }

    public static let endStream: UInt8 = 0x1
    public static let endHeaders: UInt8 = 0x4
    public static let ack: UInt8 = 0x1

    /// One frame: 24-bit length, type, flags, 31-bit stream id, payload.
    public static func frame(_ type: FrameType, flags: UInt8 = 0, stream: UInt32 = 0, _ payload: [UInt8] = []) -> [UInt8] {
        frame(type: type.rawValue, flags: flags, stream: stream, payload)
    }

    /// One frame of any type, `FrameType` names or not (PRIORITY, PRIORITY_UPDATE, unknown ones).
    public static func frame(type: UInt8, flags: UInt8 = 0, stream: UInt32 = 0, _ payload: [UInt8] = []) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags,
                UInt8(stream >> 24 & 0x7f), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)] + payload
    }

    /// An HPACK integer with an `prefixBits`-bit prefix, the first byte's high bits `high`.
    public static func integer(_ value: Int, prefixBits: Int, high: UInt8 = 0) -> [UInt8] {
        let limit = (1 << prefixBits) - 1
        guard value >= limit else { return [high | UInt8(value)] }
        var bytes = [high | UInt8(limit)]
        var rest = value - limit
        while rest >= 128 {
            bytes.append(UInt8(rest % 128 + 128))
            rest /= 128
        }
        bytes.append(UInt8(rest))
        return bytes
    }

    /// A literal field without indexing, new name (RFC 7541 §6.2.2).
    public static func literal(_ name: String, _ value: String) -> [UInt8] {
        let name = Array(name.utf8)
        let value = Array(value.utf8)
        return [0x00] + integer(name.count, prefixBits: 7) + name + integer(value.count, prefixBits: 7) + value
    }

    /// A literal field with incremental indexing, new name (§6.2.1): it enters the dynamic table.
    public static func indexedLiteral(_ name: String, _ value: String) -> [UInt8] {
        let name = Array(name.utf8)
        let value = Array(value.utf8)
        return [0x40] + integer(name.count, prefixBits: 7) + name + integer(value.count, prefixBits: 7) + value
    }

    /// An indexed field (§6.1): `index` 62 is the newest dynamic-table entry.
    public static func indexed(_ index: Int) -> [UInt8] {
        integer(index, prefixBits: 7, high: 0x80)
    }

    /// The header block of a GET of `path` on 127.0.0.1, plus `extra` literal fields.
    public static func getBlock(_ path: String, extra: [(String, String)] = []) -> [UInt8] {
        var block = literal(":method", "GET") + literal(":scheme", "http") + literal(":authority", "127.0.0.1") + literal(":path", path)
        for (name, value) in extra { block += literal(name, value) }
        return block
    }

    /// RST_STREAM with `code` (0 NO_ERROR, 8 CANCEL).
    public static func reset(_ stream: UInt32, code: UInt32 = 8) -> [UInt8] {
        frame(.rstStream, stream: stream, [UInt8(code >> 24), UInt8(code >> 16 & 0xff), UInt8(code >> 8 & 0xff), UInt8(code & 0xff)])
    }
}
