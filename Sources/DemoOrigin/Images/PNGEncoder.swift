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
