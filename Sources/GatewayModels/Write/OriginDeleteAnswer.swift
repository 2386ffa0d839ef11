/// Reads the plain-text answers of the v2/v2b delete flows, refusing anything that could make
/// the gateway request something other than the product's own delete address.
///
/// Both answers are trimmed of surrounding white space, and one pair of surrounding double
/// quotes is dropped (a JSON-string answer). Pure; any thread.
public enum OriginDeleteAnswer {
    /// The v2 `POST /api/products/{id}/secret` answer as the `product_secret` path segment:
    /// 1 to 200 RFC 3986 unreserved characters, not dots alone (`.`, `..`). Nil otherwise.
    public static func productSecret(_ body: [UInt8]) -> String? {
        let text = unwrapped(body)
        guard (1...200).contains(text.count), !text.allSatisfy({ $0 == UInt8(ascii: ".") }), text.allSatisfy(isUnreserved)
        else { return nil }
        return String(decoding: text, as: UTF8.self)
    }

    /// The v2b `POST /api/products/{id}/archived` answer as the DELETE target, relative to
    /// the origin's base path: exactly `/api/products/{token}`, or `{basePath}/api/products/{token}`
    /// for an origin mounted under `basePath` (`/market`). The token is one segment of 1 to
    /// 200 unreserved characters, `=` or `+` (base64 padding and digits); no scheme, host,
    /// query, fragment, percent-escape or dot segment. Nil otherwise. The real token format
    /// was never captured (the one sample is a client mock, `/api/products/testDeleteURI=`).
    public static func archivedTarget(_ body: [UInt8], basePath: String = "") -> String? {
        var text = unwrapped(body)
        let base = Array(basePath.utf8)
        if !base.isEmpty, text.starts(with: base) { text = text.dropFirst(base.count) }
        let prefix = Array(archivedPrefix.utf8)
        guard text.count > prefix.count, text.starts(with: prefix) else { return nil }
        let token = text.dropFirst(prefix.count)
        guard token.count <= 200, token.allSatisfy({ isUnreserved($0) || $0 == UInt8(ascii: "=") || $0 == UInt8(ascii: "+") }),
            !token.allSatisfy({ $0 == UInt8(ascii: ".") })
        else { return nil }
        return String(decoding: text, as: UTF8.self)
    }

    /// Where v2b archived products live.
    public static let archivedPrefix = "/api/products/"

    private static func unwrapped(_ body: [UInt8]) -> ArraySlice<UInt8> {
        var text = body[...]
        while let first = text.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D { text = text.dropFirst() }
        while let last = text.last, last == 0x20 || last == 0x09 || last == 0x0A || last == 0x0D { text = text.dropLast() }
        if text.count >= 2, text.first == UInt8(ascii: "\""), text.last == UInt8(ascii: "\"") { text = text.dropFirst().dropLast() }
        return text
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
