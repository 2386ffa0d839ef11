import HTTPCodec

/// `Accept` on an image request (RFC 9110 §12.5.1), reduced to the gateway's one question:
/// AVIF, WebP, or the source's own format.
public enum ImageAccept {
    /// The format an image is sent in, as far as the request decides it.
    public enum Choice: UInt8, Sendable, Hashable, CustomStringConvertible {
        /// The source's format (JPEG, PNG, GIF or WebP), re-encoded.
        case original
        case webp
        case avif

        public var description: String {
            switch self {
            case .original: "original"
            case .webp: "webp"
            case .avif: "avif"
            }
        }
    }

    /// The format to send, from the `Accept` header's bytes (nil: no header). Allocates
    /// nothing: it runs on cache hits.
    ///
    /// AVIF or WebP only when the client names it (`image/avif`, `image/webp`, any case) with
    /// q > 0 and the operator offers it (`offered`); between the two, the higher q, AVIF on a
    /// tie. Wildcards (`image/*`, `*/*`) never count: apps and older phones send them without
    /// decoding the newer formats, so only a named type is a promise. Anything else, the
    /// source's format. Read as ``WeightedList`` reads (bounded).
    public static func choose(bytes: UnsafeRawBufferPointer?, offered: Set<Choice>) -> Choice {
        guard let bytes else { return .original }
        var avif = 0
        var webp = 0
        WeightedList.forEach(bytes) { type, weight in
            let range = ByteRange(0, type.count)
            if range.equalsIgnoringCase("image/avif", in: type) {
                avif = weight ?? 0
            } else if range.equalsIgnoringCase("image/webp", in: type) {
                webp = weight ?? 0
            }
            return true
        }
        if !offered.contains(.avif) { avif = 0 }
        if !offered.contains(.webp) { webp = 0 }
        if avif > 0, avif >= webp { return .avif }
        if webp > 0 { return .webp }
        return .original
    }

    /// `choose(bytes:offered:)` on a `String` (nil: no header).
    public static func choose(_ header: String?, offered: Set<Choice>) -> Choice {
        guard var header else { return .original }
        return header.withUTF8 { choose(bytes: UnsafeRawBufferPointer($0), offered: offered) }
    }
}
