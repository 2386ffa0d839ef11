/// Writes truecolour PNG files (RFC 2083 / ISO 15948) in pure Swift: the 8-byte signature,
/// `IHDR`, one `IDAT` and `IEND`, each chunk with its CRC-32.
///
/// The image data is zlib-framed deflate made of *stored* (uncompressed) blocks: every
/// decoder reads them, and the demo's images are small, so compression is not worth a
/// dependency on the transport's zlib wrapper. Deterministic: the same pixels give the same
/// bytes on every machine.
enum PNGEncoder {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// A PNG of `width` × `height` 8-bit RGB pixels, `rgb` row by row (3 bytes a pixel).
    static func encode(width: Int, height: Int, rgb: [UInt8]) -> [UInt8] {
        precondition(width > 0 && height > 0 && rgb.count == width * height * 3, "PNG pixel count")
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(width))
        header.appendBigEndian(UInt32(height))
        // Bit depth 8, colour type 2 (RGB), deflate, adaptive filtering, no interlace.
        header += [8, 2, 0, 0, 0]
        // Each scanline starts with its filter type, 0 (None).
        var scanlines: [UInt8] = []
        scanlines.reserveCapacity(height * (1 + width * 3))
        for row in 0..<height {
            scanlines.append(0)
            scanlines += rgb[(row * width * 3)..<((row + 1) * width * 3)]
        }
        var file = signature
        appendChunk("IHDR", header, to: &file)
        appendChunk("IDAT", ZlibStored.wrap(scanlines), to: &file)
        appendChunk("IEND", [], to: &file)
        return file
    }

    /// Length, type, data and the CRC-32 of type and data.
    private static func appendChunk(_ type: String, _ data: [UInt8], to file: inout [UInt8]) {
        file.appendBigEndian(UInt32(data.count))
        let typed = Array(type.utf8) + data
        file += typed
        file.appendBigEndian(CRC32.checksum(typed))
    }
}

/// A zlib stream (RFC 1950) holding `data` in stored deflate blocks (RFC 1951 §3.2.4).
enum ZlibStored {
    static func wrap(_ data: [UInt8]) -> [UInt8] {
        // CMF 0x78: deflate with a 32 KiB window; FLG 0x01: fastest level, and 0x7801 % 31 == 0.
        var out: [UInt8] = [0x78, 0x01]
        out.reserveCapacity(data.count + data.count / 65535 * 5 + 16)
        var offset = 0
        repeat {
            let length = min(65535, data.count - offset)
            let isLast = offset + length == data.count
            out.append(isLast ? 1 : 0)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8((~length >> 8) & 0xFF)]
            out += data[offset..<(offset + length)]
            offset += length
        } while offset < data.count
        out.appendBigEndian(Adler32.checksum(data))
        return out
    }
}

/// CRC-32 as PNG, zlib and gzip use it (ISO 3309, reflected polynomial 0xEDB88320).
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}

/// Adler-32 (RFC 1950 §8), zlib's trailer checksum.
enum Adler32 {
    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        // 5552 bytes is the most that can be summed before the 32-bit sums could overflow.
        var index = 0
        while index < bytes.count {
            let end = min(index + 5552, bytes.count)
            for byte in bytes[index..<end] {
                a &+= UInt32(byte)
                b &+= a
            }
            a %= 65521
            b %= 65521
            index = end
        }
        return b << 16 | a
    }
}

extension [UInt8] {
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
    }
}
