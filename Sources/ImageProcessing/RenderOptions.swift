/// What one render makes of a source image, and its limits.
public struct RenderOptions: Sendable, Hashable {
    /// The width to render at, aspect ratio kept; nil, or a width above the source's, keeps
    /// the source's width (never upscaled).
    public var width: Int?
    /// The format written.
    public var format: ImageFormat
    /// Sources with more pixels than this (by their header) are refused undecoded.
    public var maxPixels: Int
    /// Past this, the render is stopped and fails.
    public var timeLimit: Duration
    /// The encoder's quality (JPEG, WebP, AVIF; 1–100); nil for the format's default.
    public var quality: Int?
    /// AVIF encoder speed, 0 (slowest, smallest) to 9 (fastest).
    public var avifSpeed: Int

    public init(width: Int?, format: ImageFormat, maxPixels: Int = 40_000_000, timeLimit: Duration = .seconds(10), quality: Int? = nil,
        avifSpeed: Int = 8)
    {
        self.width = width
        self.format = format
        self.maxPixels = maxPixels
        self.timeLimit = timeLimit
        self.quality = quality
        self.avifSpeed = avifSpeed
    }

    /// Default qualities: what image CDNs use for photos on phones.
    static func defaultQuality(_ format: ImageFormat) -> Int {
        switch format {
        case .jpeg: 82
        case .webp: 80
        case .avif: 55
        default: 0
        }
    }
}

/// An encoded image.
public struct RenderedImage: Sendable {
    public let bytes: [UInt8]
    public let format: ImageFormat
    public let width: Int
    public let height: Int
}

/// A source's displayed size (EXIF orientation applied) and a small preview of it: 8-bit sRGB
/// RGBA with straight alpha, row by row (`width × height × 4` bytes).
public struct ImagePreview: Sendable {
    public let sourceWidth: Int
    public let sourceHeight: Int
    public let width: Int
    public let height: Int
    public let rgba: [UInt8]
}
