import GatewayModels
import ImageProcessing

/// Draws ``DemoPhoto`` pictures and encodes them with libvips. Deterministic: the same item
/// and number give the same bytes on every run. Synchronous and CPU-heavy (about 0.1 s for a
/// full-size one): called once per picture, off the demo origin's loop.
enum PhotoRenderer {
    /// Picture `number` (1-based) of item `itemID` in `photo`'s style, full size or as a
    /// thumbnail.
    static func render(_ photo: DemoPhoto, itemID: Int64, number: Int, thumbnail: Bool) throws(ImageProcessingError) -> [UInt8] {
        let (width, height) = thumbnail ? photo.thumbnailSize : photo.shownSize
        let (sky, ground) = ImageRenderer.colours(itemID: itemID, number: number)
        switch photo {
        case .landscape, .panorama:
            let pixels = scene(width: width, height: height, sky: sky, ground: ground, grain: thumbnail ? 6 : 16)
            return try ImageProcessor.encode(pixels: pixels, width: width, height: height, bands: 3, format: .jpeg, quality: 88)
        case .rotatedPortrait:
            let upright = scene(width: width, height: height, sky: sky, ground: ground, grain: thumbnail ? 6 : 16)
            // Stored turned a quarter counter-clockwise; orientation 6 tells the viewer to turn it back.
            let stored = turnedCounterClockwise(upright, width: width, height: height)
            let jpeg = try ImageProcessor.encode(pixels: stored, width: height, height: width, bands: 3, format: .jpeg, quality: 88)
            return withOrientation(6, jpeg)
        case .transparent:
            return try ImageProcessor.encode(
                pixels: disc(side: width, colour: sky, rim: ground), width: width, height: height, bands: 4, format: .png)
        }
    }

    /// RGB: a vertical sky gradient over the upper 60 %, the ground below, a sun, and grain of
    /// ±`grain` (a seeded xorshift, so the bytes never change).
    static func scene(width: Int, height: Int, sky: [UInt8], ground: [UInt8], grain: Int) -> [UInt8] {
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        var state: UInt64 = 0x2545_F491_4F6C_DD1D ^ UInt64(width * 31 + height)
        let horizon = height * 3 / 5
        let (sunX, sunY, sunR) = (width * 7 / 10, height / 4, max(2, min(width, height) / 8))
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 3
                let dx = x - sunX
                let dy = y - sunY
                for channel in 0..<3 {
                    var value: Int
                    if dx * dx + dy * dy < sunR * sunR {
                        value = 250 - channel * 20
                    } else if y < horizon {
                        value = Int(sky[channel]) / 2 + 100 * (horizon - y) / max(1, horizon)
                    } else {
                        value = Int(ground[channel]) * (height - y + horizon / 2) / max(1, height)
                    }
                    state ^= state << 13
                    state ^= state >> 7
                    state ^= state << 17
                    value += Int(state % UInt64(2 * grain + 1)) - grain
                    rgb[offset + channel] = UInt8(clamping: value)
                }
            }
        }
        return rgb
    }

    /// RGBA: a disc in `colour` with a rim in `rim` on a transparent square, its edge
    /// antialiased over two pixels.
    static func disc(side: Int, colour: [UInt8], rim: [UInt8]) -> [UInt8] {
        var rgba = [UInt8](repeating: 0, count: side * side * 4)
        let centre = Double(side - 1) / 2
        let radius = Double(side) * 0.42
        for y in 0..<side {
            for x in 0..<side {
                let distance = ((Double(x) - centre) * (Double(x) - centre) + (Double(y) - centre) * (Double(y) - centre)).squareRoot()
                let alpha = max(0, min(1, (radius - distance) / 2))
                guard alpha > 0 else { continue }
                let offset = (y * side + x) * 4
                let paint = distance > radius * 0.85 ? rim : colour
                rgba[offset] = paint[0]
                rgba[offset + 1] = paint[1]
                rgba[offset + 2] = paint[2]
                rgba[offset + 3] = UInt8((alpha * 255).rounded())
            }
        }
        return rgba
    }

    /// `pixels` (RGB, `width` × `height`) turned a quarter counter-clockwise: `height` ×
    /// `width`, what a viewer turns a quarter clockwise (EXIF orientation 6) to show upright.
    static func turnedCounterClockwise(_ pixels: [UInt8], width: Int, height: Int) -> [UInt8] {
        var turned = [UInt8](repeating: 0, count: pixels.count)
        // Stored (x, y), `height` wide and `width` tall, shows at (width - 1 - y, x).
        for y in 0..<width {
            for x in 0..<height {
                let from = (x * width + (width - 1 - y)) * 3
                let to = (y * height + x) * 3
                turned[to] = pixels[from]
                turned[to + 1] = pixels[from + 1]
                turned[to + 2] = pixels[from + 2]
            }
        }
        return turned
    }

    /// `jpeg` with an EXIF segment (APP1) right after its start holding only an orientation,
    /// as a camera writes one: a big-endian TIFF header and one IFD entry (tag 0x0112, SHORT).
    static func withOrientation(_ orientation: UInt16, _ jpeg: [UInt8]) -> [UInt8] {
        let tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]
            + [0x00, 0x01]  // one entry
            + [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, UInt8(orientation >> 8), UInt8(orientation & 0xFF), 0x00, 0x00]
            + [0x00, 0x00, 0x00, 0x00]  // no next IFD
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return [0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload + jpeg.dropFirst(2)
    }
}
