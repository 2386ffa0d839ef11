@testable import DemoOrigin
import Foundation
import GatewayModels
import Testing

/// The demo catalogue's photo-sized pictures, as files: the format, size and orientation each
/// style promises, read from the bytes without libvips.
@Suite struct PhotoRendererTests {
    /// A JPEG's frame size (SOF0/SOF2) and its EXIF orientation (nil without one).
    static func jpegHeader(_ bytes: [UInt8]) -> (width: Int, height: Int, orientation: Int?)? {
        var offset = 2
        var orientation: Int?
        while offset + 9 < bytes.count, bytes[offset] == 0xFF {
            let marker = bytes[offset + 1]
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            if marker == 0xE1, Array(bytes[(offset + 4)..<(offset + 10)]) == Array("Exif".utf8) + [0, 0] {
                // Big-endian TIFF, IFD0 at 8, its first entry's tag and SHORT value.
                let tiff = offset + 10
                if bytes[tiff + 10] == 0x01, bytes[tiff + 11] == 0x12 { orientation = Int(bytes[tiff + 18]) << 8 | Int(bytes[tiff + 19]) }
            }
            if marker == 0xC0 || marker == 0xC2 {
                let height = Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6])
                let width = Int(bytes[offset + 7]) << 8 | Int(bytes[offset + 8])
                return (width, height, orientation)
            }
            offset += 2 + length
        }
        return nil
    }

    @Test(arguments: DemoPhoto.allCases)
    func eachStyleIsTheFileItSays(_ photo: DemoPhoto) throws {
        for thumbnail in [false, true] {
            let bytes = try PhotoRenderer.render(photo, itemID: 21, number: 1, thumbnail: thumbnail)
            let (width, height) = thumbnail ? photo.thumbnailSize : photo.shownSize
            #expect(ImageKind(magic: bytes) == photo.kind)
            switch photo {
            case .transparent:
                // IHDR: width, height, bit depth 8, colour type 6 (RGBA).
                #expect(Array(bytes[16..<26]) == [0, 0, UInt8(width >> 8), UInt8(width & 0xFF), 0, 0, UInt8(height >> 8), UInt8(height & 0xFF), 8, 6])
            case .rotatedPortrait:
                let header = try #require(Self.jpegHeader(bytes))
                // Stored turned: the frame is landscape, orientation 6 shows it as a portrait.
                #expect((header.width, header.height, header.orientation) == (height, width, 6))
            case .landscape, .panorama:
                let header = try #require(Self.jpegHeader(bytes))
                #expect((header.width, header.height, header.orientation) == (width, height, nil))
            }
            if !thumbnail, photo.kind == .jpeg { #expect(bytes.count >= 200_000, "a full-size JPEG weighs what a photo does") }
        }
        // The same bytes every time.
        #expect(try PhotoRenderer.render(photo, itemID: 21, number: 1, thumbnail: true) == PhotoRenderer.render(photo, itemID: 21, number: 1, thumbnail: true))
    }

    /// Turning is a quarter counter-clockwise: the upright top-left pixel ends bottom-left.
    @Test func turningMovesPixelsAQuarterCounterClockwise() {
        // 2 wide, 3 tall, RGB: pixel n has red n.
        let upright: [UInt8] = (0..<6).flatMap { [UInt8($0), 0, 0] }
        let turned = PhotoRenderer.turnedCounterClockwise(upright, width: 2, height: 3)
        // 3 wide, 2 tall: the right column (1, 3, 5) becomes the top row, the left the bottom.
        #expect(stride(from: 0, to: turned.count, by: 3).map { turned[$0] } == [1, 3, 5, 0, 2, 4])
    }
}
