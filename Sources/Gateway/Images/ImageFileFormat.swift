import Crypto
import ImageProcessing

/// The disk tier's file format: a 46-byte header, then the image.
///
/// `OMGI`, format version 1, the body's type (0 JPEG, 1 PNG, 2 GIF, 3 WebP, 4 AVIF, 5 a
/// placeholder record, ``ImageFileFormat/placeholderType``), the body's
/// length (UInt64, big-endian) and its SHA-256. A file that is shorter or longer than its
/// header says (a partial write), or whose body does not hash to the stored digest (a
/// corrupt one), does not decode.
enum ImageFileFormat {
    static let magic: [UInt8] = Array("OMGI".utf8)
    static let version: UInt8 = 1
    static let headerSize = 4 + 1 + 1 + 8 + 32
    /// The content type of a placeholder record (`ImagePlaceholder.record`) in the tier; never
    /// sent to a client.
    static let placeholderType = "application/vnd.open-market-gateway.placeholder"
    private static let types: [String] = [ImageFormat.jpeg, .png, .gif, .webp, .avif].map(\.contentType) + [placeholderType]

    /// Header and body; nil when `contentType` is not one of the five image types or a
    /// placeholder's.
    static func encode(_ body: [UInt8], contentType: String) -> [UInt8]? {
        guard let code = types.firstIndex(of: contentType) else { return nil }
        var file = magic + [version, UInt8(code)]
        file += withUnsafeBytes(of: UInt64(body.count).bigEndian) { Array($0) }
        file += Array(SHA256.hash(data: body))
        file += body
        return file
    }

    /// The body length a file's header announces; nil when the header is not ours.
    static func bodyLength(header: some Collection<UInt8>) -> Int? {
        let header = Array(header.prefix(headerSize))
        guard header.count == headerSize, Array(header[0..<4]) == magic, header[4] == version, Int(header[5]) < types.count
        else { return nil }
        let length = header[6..<14].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard length <= UInt64(Int.max - headerSize) else { return nil }
        return Int(length)
    }

    /// The content type and body of a complete, intact file; nil otherwise.
    static func decode(_ file: [UInt8]) -> (contentType: String, body: [UInt8])? {
        guard let length = bodyLength(header: file), file.count == headerSize + length else { return nil }
        let body = Array(file[headerSize...])
        guard Array(SHA256.hash(data: body)) == Array(file[14..<46]) else { return nil }
        return (types[Int(file[5])], body)
    }
}
