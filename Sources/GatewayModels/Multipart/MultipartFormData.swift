import Foundation

/// A multipart/form-data body to send: parts, a boundary, and their exact wire bytes.
///
/// Framing (RFC 7578/2046): for each part `--boundary CRLF`, the headers each ending in CRLF,
/// an empty line (CRLF), the content, CRLF; then `--boundary-- CRLF`. Headers are
/// `Content-Disposition: form-data; name="…"` (plus `; filename="…"` for files) and, when set,
/// `Content-Type`. Names and file names are written as raw UTF-8 with `"`, CR and LF
/// percent-encoded (`%22`, `%0D`, `%0A`), as browsers do (WHATWG HTML, multipart/form-data
/// encoding algorithm): a file name with spaces or Korean letters goes out unchanged.
///
/// A value type; thread-safe.
public struct MultipartFormData: Sendable, Hashable {
    public var parts: [MultipartPart]
    /// The boundary, without the leading `--`.
    public let boundary: String

    /// A body with a fresh random boundary (`OpenMarketGateway-` and 32 hex digits from the
    /// system's secure generator) that occurs in none of the parts.
    public init(parts: [MultipartPart]) {
        var boundary = Self.randomBoundary()
        while parts.contains(where: { MultipartParser.find(Array(boundary.utf8), in: $0.body, from: 0) != nil }) {
            boundary = Self.randomBoundary()
        }
        self.init(parts: parts, boundary: boundary)
    }

    /// A body with a chosen boundary (tests; a boundary that occurs in a part breaks the body).
    public init(parts: [MultipartPart], boundary: String) {
        self.parts = parts
        self.boundary = boundary
    }

    /// `OpenMarketGateway-` followed by 128 random bits in hex.
    public static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        func hex(_ value: UInt64) -> String {
            let digits = String(value, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
        return "OpenMarketGateway-" + hex(high) + hex(low)
    }

    /// The `Content-Type` header value: `multipart/form-data; boundary=…`.
    public var contentType: String {
        "multipart/form-data; boundary=\(boundary)"
    }

    /// The body's bytes, ready to send.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(parts.reduce(64) { $0 + $1.body.count + 160 })
        for part in parts {
            out.append(contentsOf: "--\(boundary)\r\n".utf8)
            var disposition = "Content-Disposition: form-data; name=\"\(Self.escape(part.name))\""
            if let filename = part.filename { disposition += "; filename=\"\(Self.escape(filename))\"" }
            out.append(contentsOf: (disposition + "\r\n").utf8)
            if let contentType = part.contentType { out.append(contentsOf: "Content-Type: \(contentType)\r\n".utf8) }
            out.append(contentsOf: "\r\n".utf8)
            out.append(contentsOf: part.body)
            out.append(contentsOf: "\r\n".utf8)
        }
        out.append(contentsOf: "--\(boundary)--\r\n".utf8)
        return out
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\"", with: "%22")
            .replacingOccurrences(of: "\r", with: "%0D")
            .replacingOccurrences(of: "\n", with: "%0A")
    }
}
