/// The canvas width of a WebP file, read from its first chunk (RIFF container; `VP8 ` lossy,
/// `VP8L` lossless or `VP8X` extended), or `nil` when `bytes` is not WebP.
func webPWidth(_ bytes: [UInt8]) -> Int? {
    guard bytes.count >= 30, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8) else { return nil }
    let chunk = String(decoding: bytes[12..<16], as: UTF8.self)
    switch chunk {
    case "VP8 ":
        // Frame tag (3 bytes), start code 9d 01 2a, then 14 bits of width, little-endian.
        guard bytes[23] == 0x9d, bytes[24] == 0x01, bytes[25] == 0x2a else { return nil }
        return (Int(bytes[26]) | Int(bytes[27]) << 8) & 0x3fff
    case "VP8L":
        // Signature 0x2f, then 14 bits of width − 1.
        guard bytes[20] == 0x2f else { return nil }
        return (Int(bytes[21]) | Int(bytes[22] & 0x3f) << 8) + 1
    case "VP8X":
        // Flags (4 bytes), then 24 bits of width − 1.
        return (Int(bytes[24]) | Int(bytes[25]) << 8 | Int(bytes[26]) << 16) + 1
    default:
        return nil
    }
}
