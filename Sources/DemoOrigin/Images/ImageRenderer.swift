/// The demo catalogue's generated pictures: one small PNG per item image, a diagonal
/// gradient between two colours picked from the item id and the image number, so every
/// image of every item looks different and is the same on every run.
enum ImageRenderer {
    /// Side of a full image (`/images/…`), in pixels.
    static let imageSide = 64
    /// Side of a thumbnail (`/thumbnails/…`), in pixels.
    static let thumbnailSide = 32

    /// The PNG for image `number` (1-based) of item `id` at `side` × `side` pixels.
    static func png(itemID: Int64, number: Int, side: Int) -> [UInt8] {
        let (from, to) = colours(itemID: itemID, number: number)
        var rgb: [UInt8] = []
        rgb.reserveCapacity(side * side * 3)
        let span = max(1, 2 * (side - 1))
        for y in 0..<side {
            for x in 0..<side {
                let t = x + y
                for channel in 0..<3 {
                    let start = Int(from[channel])
                    let end = Int(to[channel])
                    rgb.append(UInt8(start + (end - start) * t / span))
                }
            }
        }
        return PNGEncoder.encode(width: side, height: side, rgb: rgb)
    }

    /// The gradient's two end colours: bytes of a mixed 64-bit hash of the id and number.
    static func colours(itemID: Int64, number: Int) -> ([UInt8], [UInt8]) {
        var hash = UInt64(bitPattern: itemID) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64(number) &* 0xD6E8_FEB8_6659_FD93
        hash ^= hash >> 29
        hash &*= 0xBF58_476D_1CE4_E5B9
        hash ^= hash >> 32
        let bytes = (0..<6).map { UInt8(truncatingIfNeeded: hash >> ($0 * 8)) }
        return (Array(bytes[0..<3]), Array(bytes[3..<6]))
    }
}
