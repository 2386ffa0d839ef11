import GatewaySupport

/// A v2 or v2b list page (`GET /api/products?page_no=&items_per_page=`).
///
/// v2 writes the pagination keys in snake_case (`page_no`, `has_next`), v2b in camelCase
/// (`pageNo`, `hasNext`); both decode, detected per response. Only `pages` is required; the
/// pagination members are `nil` when absent.
public struct V2ProductsPage: Sendable, Hashable, JSONShapeDecodable {
    public var pageNo: Int?
    public var itemsPerPage: Int?
    public var totalCount: Int?
    public var offset: Int?
    public var limit: Int?
    public var lastPage: Int?
    public var hasNext: Bool?
    public var hasPrev: Bool?
    public var pages: [V2Product]

    public init(reading c: JSONObjectReader) throws(JSONShapeError) {
        func int(_ camel: String, _ snake: String) throws(JSONShapeError) -> Int? {
            if let value = try c.intIfPresent(camel) { return value }
            return try c.intIfPresent(snake)
        }
        func bool(_ camel: String, _ snake: String) throws(JSONShapeError) -> Bool? {
            if let value = try c.boolIfPresent(camel) { return value }
            return try c.boolIfPresent(snake)
        }
        pageNo = try int("pageNo", "page_no")
        itemsPerPage = try int("itemsPerPage", "items_per_page")
        totalCount = try int("totalCount", "total_count")
        offset = try int("offset", "offset")
        limit = try int("limit", "limit")
        lastPage = try int("lastPage", "last_page")
        hasNext = try bool("hasNext", "has_next")
        hasPrev = try bool("hasPrev", "has_prev")
        pages = try c.objects("pages", V2Product.init(reading:))
    }
}
