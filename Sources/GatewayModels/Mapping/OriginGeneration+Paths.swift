extension OriginGeneration {
    /// Whether the origin can filter its list by text (v2b `search_value`).
    public var supportsSearch: Bool { self == .v2b }

    /// The v1 origin pages that contract page `query` needs, in order: those holding its
    /// items and, to know `hasNextPage` exactly, the one holding the item after its last.
    /// A fetch may stop at the first page that is not full: nothing follows it.
    public static func v1OriginPages(for query: ListQuery) -> ClosedRange<Int> {
        let first = query.firstIndex / v1PageSize + 1
        let last = (query.firstIndex + query.pageSize) / v1PageSize + 1
        return first...last
    }

    /// The origin's path and query for v1 origin page `page` (1-based).
    public static func v1ListTarget(page: Int) -> String { "/items/\(page)" }

    /// The origin's path and query for a v2/v2b list page: `page_no` and `items_per_page`
    /// from the query, `search_value` (percent-encoded) when there is a search.
    /// - Precondition: `self` is not ``v1`` (v1 lists are assembled from origin pages:
    ///   ``v1OriginPages(for:)``), and a search only on an origin that ``supportsSearch``.
    public func listTarget(_ query: ListQuery) -> String {
        precondition(self != .v1, "v1 lists are assembled from /items/{page}")
        var target = "/api/products?page_no=\(query.page)&items_per_page=\(query.pageSize)"
        if let search = query.search {
            precondition(supportsSearch, "\(self) origins cannot search")
            target += "&search_value=" + Self.percentEncodedQueryValue(search)
        }
        return target
    }

    /// The origin's path for the detail of product `id`.
    public func detailTarget(id: Int64) -> String {
        switch self {
        case .v1: "/item/\(id)"
        case .v2, .v2b: "/api/products/\(id)"
        }
    }

    /// UTF-8 bytes outside RFC 3986 unreserved characters as `%XX` (so `&`, `=`, `+` and
    /// spaces cannot change the query's meaning).
    static func percentEncodedQueryValue(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
