import HTTPCodec

/// `Accept-Encoding` (RFC 9110 §12.5.3), reduced to the one question the gateway asks.
public enum AcceptEncoding {
    /// Whether a gzip-coded response is acceptable, from a header value's bytes (nil: no
    /// header). Allocates nothing: it runs on cache hits.
    ///
    /// `gzip` or `x-gzip` with q > 0 allows it, `gzip;q=0` (or a malformed q) refuses it even
    /// when `*` is also listed, and `*` with q > 0 allows it when gzip is not named. No
    /// header, or a header that names neither, means identity only: a gateway should not
    /// guess. Read as ``WeightedList`` reads (bounded); when part of the header was left
    /// unread, where it might have refused gzip (an element too long to read before the first
    /// gzip, or anything left over for `*`), the answer is identity, which is always safe.
    public static func allowsGzip(bytes: UnsafeRawBufferPointer?) -> Bool {
        guard let bytes else { return false }
        var gzip: Int??
        var wildcard: Int?
        var unread = false
        let complete = WeightedList.forEach(bytes) { coding, weight in
            if coding.isEmpty {
                unread = true
            } else if ByteRange(0, coding.count).equalsIgnoringCase("gzip", in: coding)
                || ByteRange(0, coding.count).equalsIgnoringCase("x-gzip", in: coding)
            {
                gzip = .some(unread ? nil : weight)
                return false
            } else if coding.count == 1, coding[0] == UInt8(ascii: "*"), wildcard == nil {
                wildcard = weight ?? 0
            }
            return true
        }
        if let gzip { return (gzip ?? 0) > 0 }
        return complete && !unread && (wildcard ?? 0) > 0
    }

    /// `allowsGzip(bytes:)` on a `String` (nil: no header).
    public static func allowsGzip(_ header: String?) -> Bool {
        guard var header else { return false }
        return header.withUTF8 { allowsGzip(bytes: UnsafeRawBufferPointer($0)) }
    }
}
