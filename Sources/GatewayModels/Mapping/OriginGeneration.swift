import Foundation
import GatewaySupport

/// The Open Market origin generations, and the one adapter API the gateway's read path calls.
///
/// - ``v1``: `camp-open-market(-2).herokuapp.com` (`/items/{page}`, `/item/{id}`).
/// - ``v2``: `market-training.yagom-academy.kr` (`/api/products`), snake_case pagination.
/// - ``v2b``: `openmarket.yagom-academy.kr`, camelCase pagination, extra item keys.
///
/// Every generation maps to the same contract (``ProductPage``, ``ProductDetail``). v2 and v2b
/// responses are read by the same lenient decoder (the casing is detected per response), so a
/// host that changes generation keeps working.
///
/// All members are pure and thread-safe; they throw only ``OriginResponseError``.
public enum OriginGeneration: String, Sendable, Hashable, CaseIterable {
    case v1, v2, v2b

    /// Items on a full v1 page. v1 has no "has next" flag, so a full page is taken to have a next.
    public static let v1PageSize = 20

    /// Maps a list response body to the contract page.
    ///
    /// - Parameters:
    ///   - bytes: the origin's response body.
    ///   - page: the page the client asked for; the contract echoes it.
    ///   - locale: the resolved request locale, for the display strings.
    ///   - imageURL: rewrites each thumbnail URL.
    ///   - placeholders: each image's placeholder, when the request asks for them.
    ///   - timeZone: the zone of v2/v2b zone-less dates.
    /// - Throws: ``OriginResponseError`` when the body is not this generation's list shape.
    public func mapPage(
        bytes: some Sequence<UInt8>, page: Int, locale: ClientLocale,
        imageURL: @escaping ImageURLRewriter = identityImageURL, placeholders: ImagePlaceholderLookup? = nil,
        timeZone: TimeZone = OriginTimestamp.originTimeZone
    ) throws(OriginResponseError) -> ProductPage {
        let mapper = ProductMapper(locale: locale, imageURL: imageURL, placeholder: placeholders)
        switch self {
        case .v1:
            let origin = try decode(V1ItemsPage.self, from: bytes)
            var items: [ProductSummary] = []
            items.reserveCapacity(origin.items.count)
            for item in origin.items { items.append(mapper.summary(try OriginProduct(v1: item))) }
            return ProductPage(page: page, items: items, hasNextPage: origin.items.count >= Self.v1PageSize)
        case .v2, .v2b:
            let origin = try decode(V2ProductsPage.self, from: bytes)
            var items: [ProductSummary] = []
            for product in Self.pageRows(of: origin) {
                items.append(mapper.summary(try OriginProduct(v2: product, generation: self, timeZone: timeZone)))
            }
            let hasNext = origin.hasNext ?? origin.lastPage.map { page < $0 } ?? !items.isEmpty
            return ProductPage(page: page, items: items, hasNextPage: hasNext)
        }
    }

    /// Contract page `query` from v1 origin pages: those ``v1OriginPages(for:)`` names, in
    /// order from its first. The list may end early: the fetch stops at the first page that
    /// is not full. `hasNextPage` is exact: true only when an item follows the page's last. An
    /// id seen twice (pages read while the list shifted) is kept once.
    ///
    /// - Throws: ``OriginResponseError`` when an item cannot be mapped.
    public static func mapV1Pages(
        _ pages: [V1ItemsPage], query: ListQuery, locale: ClientLocale, imageURL: @escaping ImageURLRewriter = identityImageURL,
        placeholders: ImagePlaceholderLookup? = nil
    ) throws(OriginResponseError) -> ProductPage {
        let mapper = ProductMapper(locale: locale, imageURL: imageURL, placeholder: placeholders)
        var skip = query.firstIndex - (v1OriginPages(for: query).lowerBound - 1) * v1PageSize
        var items: [ProductSummary] = []
        items.reserveCapacity(query.pageSize)
        // Pages read at different times may overlap where the list shifted: an id is shown once.
        var seen = Set<Int64>()
        for page in pages {
            for item in page.items where seen.insert(item.id).inserted {
                if skip > 0 {
                    skip -= 1
                } else if items.count == query.pageSize {
                    return ProductPage(page: query.page, items: items, hasNextPage: true)
                } else {
                    items.append(mapper.summary(try OriginProduct(v1: item)))
                }
            }
        }
        return ProductPage(page: query.page, items: items, hasNextPage: false)
    }

    /// A v1 origin list page (`GET /items/{page}`), for ``mapV1Pages(_:query:locale:imageURL:)``.
    /// - Throws: ``OriginResponseError`` when the body is not a v1 list page.
    public static func v1Page(bytes: some Sequence<UInt8>) throws(OriginResponseError) -> V1ItemsPage {
        try OriginGeneration.v1.decode(V1ItemsPage.self, from: bytes)
    }

    /// Maps a detail response body (v1 `GET /item/{id}`, v2 `GET /api/products/{id}`).
    ///
    /// - Throws: ``OriginResponseError`` when the body is not this generation's detail shape.
    public func mapDetail(
        bytes: some Sequence<UInt8>, locale: ClientLocale,
        imageURL: @escaping ImageURLRewriter = identityImageURL, placeholders: ImagePlaceholderLookup? = nil,
        timeZone: TimeZone = OriginTimestamp.originTimeZone
    ) throws(OriginResponseError) -> ProductDetail {
        let mapper = ProductMapper(locale: locale, imageURL: imageURL, placeholder: placeholders)
        switch self {
        case .v1:
            return mapper.detail(try OriginProduct(v1: try decode(V1Item.self, from: bytes)))
        case .v2, .v2b:
            let product = try decode(V2Product.self, from: bytes)
            return mapper.detail(try OriginProduct(v2: product, generation: self, timeZone: timeZone))
        }
    }

    /// ``mapPage(bytes:page:locale:imageURL:timeZone:)`` then ``ContractJSONEncodable/jsonBytes()``:
    /// origin bytes in, deterministic contract JSON out.
    public func pageJSON(
        bytes: some Sequence<UInt8>, page: Int, locale: ClientLocale,
        imageURL: @escaping ImageURLRewriter = identityImageURL
    ) throws(OriginResponseError) -> [UInt8] {
        try mapPage(bytes: bytes, page: page, locale: locale, imageURL: imageURL).jsonBytes()
    }

    /// ``mapDetail(bytes:locale:imageURL:timeZone:)`` then ``ContractJSONEncodable/jsonBytes()``.
    public func detailJSON(
        bytes: some Sequence<UInt8>, locale: ClientLocale,
        imageURL: @escaping ImageURLRewriter = identityImageURL, placeholders: ImagePlaceholderLookup? = nil
    ) throws(OriginResponseError) -> [UInt8] {
        try mapDetail(bytes: bytes, locale: locale, imageURL: imageURL, placeholders: placeholders).jsonBytes()
    }

    /// The rows of the requested page. v2b was seen answering `page_no=3&items_per_page=20`
    /// with rows `[0, limit)` (60 rows, `offset` 40) instead of `[offset, limit)`. A page is
    /// taken to be that quirk when `offset > 0` and it holds more rows than a page has
    /// (`items_per_page`, else `limit - offset`); then only `[offset, offset + page size)` are
    /// this page's (none when the list ends before `offset`). This also holds on a last page,
    /// which the quirk answers with rows `[0, total)`.
    static func pageRows(of page: V2ProductsPage) -> ArraySlice<V2Product> {
        guard let offset = page.offset, offset > 0,
            let perPage = page.itemsPerPage ?? page.limit.map({ $0 - offset }), perPage > 0,
            page.pages.count > perPage
        else { return page.pages[...] }
        guard offset < page.pages.count else { return [] }
        return page.pages[offset..<min(page.pages.count, offset + perPage)]
    }

    /// Parses with ``JSONParser`` (exact numbers, about twice as fast as a typed `JSONDecoder`
    /// pass on the v1 sample) and reads the shape.
    private func decode<T: JSONShapeDecodable>(_ type: T.Type, from bytes: some Sequence<UInt8>) throws(OriginResponseError) -> T {
        do {
            return try T(json: bytes)
        } catch {
            throw OriginResponseError(generation: self, reason: "\(T.self): \(error)")
        }
    }
}
