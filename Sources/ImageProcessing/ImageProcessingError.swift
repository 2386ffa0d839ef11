/// Why an image could not be rendered.
public enum ImageProcessingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a JPEG, PNG, GIF, WebP or HEIF file (by its first bytes).
    case notAnImage
    /// Larger than the pixel limit, by its header: refused before any pixel is decoded.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// The render passed its time limit and was stopped.
    case timedOut
    /// libvips refused it (damaged data, an unsupported variant of the format, no memory):
    /// its message, for logs only (messages of concurrent renders may mix).
    case failed(String)
    /// libvips could not start.
    case unavailable(String)

    public var description: String {
        switch self {
        case .notAnImage: "not a JPEG, PNG, GIF, WebP or HEIF image"
        case .tooManyPixels(let width, let height, let limit): "\(width)×\(height) pixels, more than the limit of \(limit)"
        case .timedOut: "rendering took longer than its time limit"
        case .failed(let message): "the image could not be decoded or encoded: \(message)"
        case .unavailable(let message): "libvips could not start: \(message)"
        }
    }
}
