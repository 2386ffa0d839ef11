import Foundation
import GatewayModels

/// One image of an item.
public enum DemoImage: Sendable, Hashable {
    /// A PNG drawn from the item id and the image number (seeded items, data files).
    case generated
    /// Bytes a client uploaded, served back unchanged with their own type.
    case uploaded(bytes: [UInt8], kind: ImageKind, lastModified: Date)

    public var kind: ImageKind {
        switch self {
        case .generated: .png
        case .uploaded(_, let kind, _): kind
        }
    }
}
