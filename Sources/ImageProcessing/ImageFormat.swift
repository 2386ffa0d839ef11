/// The image formats the gateway reads and writes, recognised by their first bytes, never by
/// what a `Content-Type` claims. Pure and thread-safe.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case jpeg
    case png
    case gif
    case webp
    /// AVIF: AV1 in a HEIF container. Written for clients that accept it; read as HEIF.
    case avif
    /// HEIC/HEIF (what iPhones shoot): read from uploads, never written.
    case heif

    public var contentType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .avif: "image/avif"
        case .heif: "image/heif"
        }
    }

    public var description: String { rawValue }

    /// The format `bytes` start with; nil for anything else. A HEIF file is an ISO BMFF `ftyp`
    /// box whose major brand is one of HEIF's (`heic`, `heix`, `mif1`, …) or AVIF's (`avif`,
    /// `avis`).
    public init?(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(12))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + prefix.count && Array(head[offset..<offset + prefix.count]) == prefix
        }
        if starts([0xff, 0xd8, 0xff]) {
            self = .jpeg
        } else if starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) {
            self = .png
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            self = .gif
        } else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts(Array("ftyp".utf8), at: 4), head.count == 12 {
            switch String(decoding: head[8..<12], as: UTF8.self) {
            case "avif", "avis": self = .avif
            case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1": self = .heif
            default: return nil
            }
        } else {
            return nil
        }
    }
}
