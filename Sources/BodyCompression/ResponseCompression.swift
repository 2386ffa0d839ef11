import HTTPInterface

/// When the gateway gzips a response: the client accepts gzip, the type is compressible,
/// the body is at least `minimumBytes`, and nothing encoded it already.
///
/// Every response of a compressible type carries `Vary: Accept-Encoding`, compressed or
/// not, so shared caches downstream keep the two representations apart.
public struct ResponseCompression: Sendable {
    public var minimumBytes: Int
    public var level: Int32

    public init(minimumBytes: Int = 1024, level: Int32 = 6) {
        self.minimumBytes = minimumBytes
        self.level = level
    }

    /// Whether `contentType` (parameters allowed) is worth compressing.
    public static func isCompressible(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        if contentType == "application/json" || contentType == "application/problem+json" { return true }
        let mediaType = MediaType.essence(of: contentType)
        if mediaType.hasPrefix("text/") || MediaType.isJSON(mediaType) { return true }
        switch mediaType {
        case "application/javascript", "application/xml", "image/svg+xml", "application/openmetrics-text":
            return true
        default:
            return false
        }
    }

    /// Adds `Vary` where it belongs and says whether `response` should be gzipped for a
    /// client whose `Accept-Encoding` allows gzip (`acceptsGzip`).
    public func prepare(_ response: inout GatewayResponse, acceptsGzip: Bool) -> Bool {
        guard Self.isCompressible(response.headers["Content-Type"]) else { return false }
        response.headers.appendToken("Vary", "Accept-Encoding")
        guard acceptsGzip, response.body.count >= minimumBytes, !response.headers.contains("Content-Encoding"),
            response.status != 204, response.status != 304
        else { return false }
        return true
    }

    /// Replaces the body with its gzip encoding and sets `Content-Encoding`.
    public func compress(_ response: inout GatewayResponse) {
        response.body = Gzip.compress(response.body, level: level)
        response.headers.set("Content-Encoding", "gzip")
    }
}
