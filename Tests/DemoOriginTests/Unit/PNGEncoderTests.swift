import BodyCompression
@testable import DemoOrigin
import GatewayModels
import Testing

@Suite struct PNGEncoderTests {
    @Test func checksumsMatchTheirCheckValues() {
        // The standard check values for "123456789" (CRC-32/ISO-HDLC and Adler-32).
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(Adler32.checksum(Array("123456789".utf8)) == 0x091E_01DE)
        #expect(Adler32.checksum(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(CRC32.checksum([]) == 0)
        #expect(Adler32.checksum([]) == 1)
        // Long enough that the Adler sums are reduced mid-way.
        #expect(Adler32.checksum([UInt8](repeating: 0xFF, count: 100_000)) == 0x149A_302C)
    }

    @Test func storedZlibInflatesWithZlib() throws {
        for count in [0, 1, 65535, 65536, 140_000] {
            let data = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            let wrapped = ZlibStored.wrap(data)
            #expect(wrapped.prefix(2) == [0x78, 0x01])
            #expect(try Gzip.decompress(wrapped, maxBytes: 1 << 20) == data, "\(count)")
        }
    }

    @Test func pngHasSignatureHeaderAndValidChunks() throws {
        let png = PNGEncoder.encode(width: 3, height: 2, rgb: Array(0..<18))
        #expect(ImageKind(magic: png) == .png)
        #expect(Array(png[8..<33]) == [
            0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52, 0, 0, 0, 3, 0, 0, 0, 2, 8, 2, 0, 0, 0,
        ] + bigEndian(CRC32.checksum(Array(png[12..<29]))))
        #expect(Array(png.suffix(12)) == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
        // IDAT holds filter byte 0 then each row.
        let idatLength = Int(png[33]) << 24 | Int(png[34]) << 16 | Int(png[35]) << 8 | Int(png[36])
        #expect(Array(png[37..<41]) == Array("IDAT".utf8))
        let idat = Array(png[41..<(41 + idatLength)])
        #expect(Array(png[(41 + idatLength)..<(45 + idatLength)]) == bigEndian(CRC32.checksum(Array("IDAT".utf8) + idat)))
        #expect(try Gzip.decompress(idat, maxBytes: 1024) == [0] + Array(0..<9) + [0] + Array(9..<18))
    }

    @Test func renderedImagesAreDeterministicAndDistinct() {
        let first = ImageRenderer.png(itemID: 7, number: 1, side: 64)
        #expect(first == ImageRenderer.png(itemID: 7, number: 1, side: 64))
        #expect(first != ImageRenderer.png(itemID: 7, number: 2, side: 64))
        #expect(first != ImageRenderer.png(itemID: 8, number: 1, side: 64))
        // 64 rows of a filter byte and 64 RGB pixels, stored: 12 352 bytes of image data.
        #expect(first.count == 8 + 25 + 12 + (2 + 5 + 12_352 + 4) + 12)
        #expect(ImageRenderer.png(itemID: 7, number: 1, side: 32).count == 8 + 25 + 12 + (2 + 5 + 3_104 + 4) + 12)
    }

    private func bigEndian(_ value: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(value)
        return bytes
    }
}
