import Foundation

/// What one `GET /v1/products` asks for, normalised: the cache key's list part and what the
/// origin request is built from. Two requests that mean the same list have equal queries.
public struct ListQuery: Sendable, Hashable {
    /// 1 to ``maxPage``.
    public var page: Int
    /// 1 to ``maxPageSize``; ``defaultPageSize`` when the client sends none.
    public var pageSize: Int
    /// ``normalisedSearch(_:)`` of `q`, or nil for the unfiltered list.
    public var search: String?
    /// `include=placeholders`: each thumbnail's size and ThumbHash in the answer.
    public var includePlaceholders: Bool

    public static let maxPage = 10_000
    public static let defaultPageSize = 20
    public static let maxPageSize = 100
    /// The longest `q`, in characters, after normalisation.
    public static let maxSearchCharacters = 100

    public init(page: Int = 1, pageSize: Int = ListQuery.defaultPageSize, search: String? = nil, includePlaceholders: Bool = false) {
        self.page = page
        self.pageSize = pageSize
        self.search = search
        self.includePlaceholders = includePlaceholders
    }

    /// The items this page shows, as 0-based positions in the whole list: `[first, first + pageSize)`.
    public var firstIndex: Int { (page - 1) * pageSize }

    /// `q` as the gateway searches for it: Unicode NFC, leading and trailing white space
    /// dropped, every inner run of white space one space (so that `q=%20shoes` and `q=shoes`
    /// share a cache entry). Nil, and refused, when `raw` holds more than
    /// ``maxSearchCharacters`` code points (as `openapi.yaml`'s `maxLength` counts them), a
    /// control character anywhere (tabs and line breaks too: nothing unprintable reaches the
    /// origin), or nothing but white space.
    public static func normalisedSearch(_ raw: String) -> String? {
        guard raw.unicodeScalars.count <= maxSearchCharacters,
            !raw.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { return nil }
        let text = raw.precomposedStringWithCanonicalMapping.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        return text.isEmpty ? nil : text
    }
}
