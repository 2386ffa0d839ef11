import Foundation
import GatewayModels

/// One image of an item.
public enum DemoImage: Sendable, Hashable {
    /// A PNG drawn from the item id and the image number (seeded items, data files).
    case generated
    /// A photo-sized picture drawn from the item id and the image number, as ``DemoPhoto``
    /// says (a few seeded items: what the gateway's image sizes and placeholders are shown on).
    case photo(DemoPhoto)
    /// Bytes a client uploaded, served back unchanged with their own type.
    case uploaded(bytes: [UInt8], kind: ImageKind, lastModified: Date)

    public var kind: ImageKind {
        switch self {
        case .generated: .png
        case .photo(let photo): photo.kind
        case .uploaded(_, let kind, _): kind
        }
    }
}

/// The seeded items' photo-sized pictures: what a phone app's catalogue holds, so the demo
/// shows real sizes, orientations and placeholders. Each is drawn once (a sky, the ground and
/// a sun in the item's colours, with grain so that a JPEG weighs what a photo does) and
/// kept; its thumbnail (`/thumbnails/…`) is the same picture at 320 px on its longer side.
public enum DemoPhoto: String, Sendable, Hashable, CaseIterable {
    /// A 1600 × 1067 JPEG (about 300 KB).
    case landscape
    /// A portrait photo as phones store it: 1200 × 900 pixels in the file and EXIF
    /// orientation 6, so it is shown 900 × 1200.
    case rotatedPortrait
    /// A 480 × 480 PNG with alpha: a round product shot on a transparent background.
    case transparent
    /// A 1800 × 600 JPEG panorama.
    case panorama

    public var kind: ImageKind {
        self == .transparent ? .png : .jpeg
    }

    /// Its thumbnail's size as shown: ``shownSize`` scaled to 320 px on its longer side.
    public var thumbnailSize: (width: Int, height: Int) {
        let (width, height) = shownSize
        let scale = 320 / Double(max(width, height))
        return (Int((Double(width) * scale).rounded()), Int((Double(height) * scale).rounded()))
    }

    /// Its size as shown (after the EXIF orientation).
    public var shownSize: (width: Int, height: Int) {
        switch self {
        case .landscape: (1600, 1067)
        case .rotatedPortrait: (900, 1200)
        case .transparent: (480, 480)
        case .panorama: (1800, 600)
        }
    }
}
