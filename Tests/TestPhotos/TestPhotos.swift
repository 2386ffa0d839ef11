import CVips
import Foundation
import ImageProcessing
import Testing

/// Real images made for the tests: pixels encoded by libvips (no metadata), then EXIF (with an
/// orientation and GPS tags) and XMP spliced in as a phone would write them, byte by byte, by
/// code that does not share the gateway's.
public enum TestPhotos {
    /// Stored pixels `width` × `height`, RGB: the left half red, the right half blue, so a turn
    /// shows where red ends up.
    public static func pixels(width: Int, height: Int) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 3
                if x < width / 2 { rgb[offset] = 220 } else { rgb[offset + 2] = 220 }
                rgb[offset + 1] = UInt8(y * 255 / max(1, height - 1) / 4)
            }
        }
        return rgb
    }

    /// `pixels` encoded as `saver` (CVIPS_SAVE_*), metadata-free.
    public static func encoded(width: Int, height: Int, bands: Int = 3, saver: Int32, pixels: [UInt8]? = nil) throws -> [UInt8] {
        try ImageProcessor.start()
        let data = pixels ?? Self.pixels(width: width, height: height)
        let image = try #require(data.withUnsafeBytes {
            vips_image_new_from_memory_copy($0.baseAddress, $0.count, Int32(width), Int32(height), Int32(bands), VIPS_FORMAT_UCHAR)
        })
        defer { g_object_unref(image) }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        #expect(cvips_save(image, saver, 90, 9, &buffer, &length) == 0)
        let bytes = try #require(buffer)
        defer { g_free(bytes) }
        return Array(UnsafeRawBufferPointer(start: bytes, count: length))
    }

    /// A marker the GPS block and the XMP packet carry, to look for in what comes out.
    public static let secret = Array("51.4778N-secret-home".utf8)

    /// Pixels of camera noise (random, seeded): they compress as badly as photos do, so a
    /// 1600 × 1200 JPEG of them is about 2 MB.
    public static func noise(width: Int, height: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed | 1
        return (0..<(width * height * 3)).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    /// A JPEG as a phone writes it: EXIF (orientation `orientation`, GPS latitude 51° 28′ N,
    /// a GPS processing method holding ``secret``) and an XMP packet holding ``secret``.
    /// `pixels` (RGB) default to ``pixels(width:height:)``.
    public static func phoneJPEG(width: Int, height: Int, orientation: UInt16, pixels: [UInt8]? = nil) throws -> [UInt8] {
        let jpeg = try encoded(width: width, height: height, saver: Int32(CVIPS_SAVE_JPEG), pixels: pixels)
        #expect(jpeg.prefix(2) == [0xff, 0xd8])
        let exif = Array("Exif\0\0".utf8) + tiff(orientation: orientation)
        let xmp = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
            + Array("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF><rdf:Description exif:GPSLatitude=\"".utf8) + secret
            + Array("\"/></rdf:RDF></x:xmpmeta>".utf8)
        return [0xff, 0xd8] + segment(0xe1, exif) + segment(0xe1, xmp) + jpeg.dropFirst(2)
    }

    static func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return [0xff, marker, UInt8(length >> 8), UInt8(length & 0xff)] + payload
    }

    /// A big-endian TIFF: IFD0 with Orientation and a GPS IFD pointer; the GPS IFD with
    /// GPSLatitudeRef "N", GPSLatitude 51/1 28/1 40/1 and GPSProcessingMethod "ASCII\0\0\0" + secret.
    static func tiff(orientation: UInt16) -> [UInt8] {
        var out: [UInt8] = Array("MM".utf8) + be16(42) + be32(8)
        // IFD0 at 8: 2 entries (2 + 2 × 12 + 4 = 30 bytes), GPS IFD at 38.
        out += be16(2)
        out += be16(0x0112) + be16(3) + be32(1) + be16(orientation) + be16(0)
        out += be16(0x8825) + be16(4) + be32(1) + be32(38)
        out += be32(0)
        // GPS IFD at 38: 3 entries (2 + 36 + 4 = 42 bytes); its data from 80.
        let method = Array("ASCII\0\0\0".utf8) + secret
        out += be16(3)
        out += be16(0x0001) + be16(2) + be32(2) + Array("N\0".utf8) + [0, 0]
        out += be16(0x0002) + be16(5) + be32(3) + be32(80)
        out += be16(0x001b) + be16(7) + be32(UInt32(method.count)) + be32(104)
        out += be32(0)
        out += be32(51) + be32(1) + be32(28) + be32(1) + be32(40) + be32(1)
        out += method
        return out
    }

    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xff)] }
    static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (24 - 8 * $0)) & 0xff) } }

    /// A PNG whose header says `width` × `height` (grey, 8 bits), then an IDAT of a few rows of
    /// zeros and the end: a decompression bomb's shape, small on disk.
    public static func pngBomb(width: UInt32, height: UInt32) -> [UInt8] {
        let header = be32(width) + be32(height) + [8, 0, 0, 0, 0]
        // A stored (uncompressed) zlib block of 16 bytes of zeros, with its Adler-32.
        let idat: [UInt8] = [0x78, 0x01, 0x01, 0x10, 0x00, 0xef, 0xff] + [UInt8](repeating: 0, count: 16) + be32(0x0010_0001)
        return [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + chunk("IHDR", header) + chunk("IDAT", idat) + chunk("IEND", [])
    }

    /// A PNG with a `tEXt` chunk (a comment holding ``secret``) after its header.
    public static func pngWithText(width: Int, height: Int) throws -> [UInt8] {
        let png = try encoded(width: width, height: height, saver: Int32(CVIPS_SAVE_PNG))
        let afterHeader = 8 + 25
        return Array(png.prefix(afterHeader)) + chunk("tEXt", Array("Comment\0".utf8) + secret) + png.dropFirst(afterHeader)
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typed = Array(type.utf8) + data
        return be32(UInt32(data.count)) + typed + be32(crc32(typed))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// The decoded RGB(A) pixels of an encoded image, and its size and bands, by libvips.
    public static func decode(_ bytes: [UInt8], loader: Int32) throws -> (width: Int, height: Int, bands: Int, pixels: [UInt8]) {
        try ImageProcessor.start()
        return try bytes.withUnsafeBytes { buffer in
            var image: UnsafeMutablePointer<VipsImage>?
            #expect(cvips_load(buffer.baseAddress, buffer.count, loader, 1, 1, &image) == 0)
            let loaded = try #require(image)
            defer { g_object_unref(loaded) }
            var size = 0
            let memory = try #require(vips_image_write_to_memory(loaded, &size))
            defer { g_free(memory) }
            return (
                Int(vips_image_get_width(loaded)), Int(vips_image_get_height(loaded)), Int(vips_image_get_bands(loaded)),
                Array(UnsafeRawBufferPointer(start: memory, count: size))
            )
        }
    }
}
