/// The image formats the origin accepts.
public enum ImageKind: String, Sendable, Hashable, CaseIterable {
    case jpeg, png

    /// `image/jpeg` or `image/png`.
    public var mimeType: String {
        switch self {
        case .jpeg: return "image/jpeg"
        case .png: return "image/png"
        }
    }

    /// `jpg` or `png`.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        }
    }

    /// The kind named by the data's magic bytes: JPEG starts `FF D8 FF`, PNG with the 8-byte
    /// signature `89 50 4E 47 0D 0A 1A 0A`. `nil` for anything else.
    public init?(magic data: [UInt8]) {
        if data.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else {
            return nil
        }
    }
}
