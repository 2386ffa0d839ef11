/// `Accept-Encoding` (RFC 9110 §12.5.3), reduced to the one question the gateway asks.
public enum AcceptEncoding {
    /// Whether a gzip-coded response is acceptable.
    ///
    /// `gzip` or `x-gzip` with q > 0 allows it, `gzip;q=0` refuses it even when `*` is also
    /// listed, and `*` with q > 0 allows it when gzip is not named. No header, or a header
    /// that names neither, means identity only: a gateway should not guess.
    public static func allowsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        // The common shapes, answered without parsing.
        switch header {
        case "gzip", "gzip, deflate", "gzip, deflate, br", "gzip, deflate, br, zstd", "br, gzip, deflate", "deflate, gzip":
            return true
        default:
            break
        }
        var wildcard: Double?
        for element in header.split(separator: ",") {
            let parts = element.split(separator: ";")
            guard let first = parts.first else { continue }
            let coding = first.trimmingSpaces().lowercased()
            let quality = Self.quality(parts.dropFirst())
            switch coding {
            case "gzip", "x-gzip": return quality > 0
            case "*": wildcard = quality
            default: continue
            }
        }
        return (wildcard ?? 0) > 0
    }

    /// `allowsGzip` on a header value's bytes: the common shapes are compared byte for
    /// byte (no allocation); anything else is parsed as text.
    public static func allowsGzip(bytes: UnsafeRawBufferPointer?) -> Bool {
        guard let bytes else { return false }
        for common in commonGzipValues where bytes.elementsEqual(common) { return true }
        return allowsGzip(String(decoding: bytes, as: UTF8.self))
    }

    private static let commonGzipValues: [[UInt8]] = [
        "gzip", "gzip, deflate", "gzip, deflate, br", "gzip, deflate, br, zstd", "br, gzip, deflate", "deflate, gzip",
    ].map { Array($0.utf8) }

    /// The `q` parameter among `parameters`: 1 when absent, 0 when malformed.
    static func quality(_ parameters: ArraySlice<Substring>) -> Double {
        for parameter in parameters {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingSpaces().lowercased() == "q" else { continue }
            guard let value = Double(pair[1].trimmingSpaces()), (0...1).contains(value) else { return 0 }
            return value
        }
        return 1
    }
}
