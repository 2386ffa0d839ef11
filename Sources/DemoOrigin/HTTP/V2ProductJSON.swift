import Foundation
import GatewayModels

/// The v2/v2b response bodies, shaped and ordered like the captured samples
/// (`shared/upstream-samples/v2-*.json`, `v2b-*.json`).
///
/// - List page, v2: `page_no, items_per_page, total_count, offset, limit, pages, last_page,
///   has_next, has_prev` (snake_case; `pages` before `last_page`, as in the capture).
///   v2b: `pageNo, itemsPerPage, totalCount, offset, limit, lastPage, hasNext, hasPrev, pages`.
/// - List item, v2: `id, vendor_id, name, thumbnail, currency, price, bargain_price,
///   discounted_price, stock, created_at, issued_at`; v2b adds `vendorName` after `vendor_id`
///   and `description` after `name`.
/// - Detail, v2: the v2 list item with `description` between `price` and `bargain_price`
///   (as the Jan-2022 capture), then `images: [{id, url, thumbnail_url, succeed, issued_at}]`
///   and `vendors: {name, id, created_at, issued_at}`. v2b: the v2 list item with
///   `description` after `name` (no `vendorName`, as the v2b detail capture), then
///   `images: [{id, url, thumbnail_url, issued_at}]` and `vendors: {id, name}`.
///
/// Prices are Java doubles (``JavaDouble``: `2000.0`, `1.23123123E8`): `price`,
/// `bargain_price` (the sale price) and `discounted_price` (the discount amount, `0.0` for
/// none). Dates are ``SeoulDateTime`` of the registration instant, with two fraction digits
/// on v2 and none on v2b; `created_at` = `issued_at`. URLs are absolute on the origin's base:
/// `thumbnail` is the first image's thumbnail; image `n` of product `id` is
/// `{base}/images/{id}-{n}.{ext}` with id `(id − 1) × 5 + n`.
struct V2ProductJSON {
    let generation: OriginGeneration
    let baseURL: String
    let vendors: VendorDirectory

    private var isV2b: Bool { generation == .v2b }

    /// A list page: `matched` is every product the query matched, newest first; `pages` holds
    /// rows `[offset, limit)` of it, or `[0, limit)` with `quirk`.
    func page(_ query: V2ListQuery, matched: [DemoItem], quirk: Bool) -> [UInt8] {
        let total = matched.count
        let first = quirk ? 0 : min(query.offset, total)
        let rows = matched[first..<min(query.limit, total)]
        let lastPage = (total + query.itemsPerPage - 1) / query.itemsPerPage
        var writer = SpringJSONWriter(capacity: 512 * max(1, rows.count))
        writer.beginObject()
        writer.key(isV2b ? "pageNo" : "page_no"); writer.integer(Int64(query.pageNo))
        writer.key(isV2b ? "itemsPerPage" : "items_per_page"); writer.integer(Int64(query.itemsPerPage))
        writer.key(isV2b ? "totalCount" : "total_count"); writer.integer(Int64(total))
        writer.key("offset"); writer.integer(Int64(query.offset))
        writer.key("limit"); writer.integer(Int64(query.limit))
        if !isV2b { writePages(rows, to: &writer) }
        writer.key(isV2b ? "lastPage" : "last_page"); writer.integer(Int64(lastPage))
        writer.key(isV2b ? "hasNext" : "has_next"); writer.bool(query.pageNo < lastPage)
        writer.key(isV2b ? "hasPrev" : "has_prev"); writer.bool(query.pageNo > 1)
        if isV2b { writePages(rows, to: &writer) }
        writer.endObject()
        return writer.bytes
    }

    /// One product with its description, images and vendor (GET, POST, PATCH, DELETE).
    func detail(_ item: DemoItem) -> [UInt8] {
        var writer = SpringJSONWriter(capacity: 1024)
        let issued = date(item.registrationDate)
        writer.beginObject()
        writer.key("id"); writer.integer(item.id)
        writer.key("vendor_id"); writer.integer(item.vendorID)
        writer.key("name"); writer.string(item.title)
        if isV2b { writer.key("description"); writer.string(item.descriptions) }
        writer.key("thumbnail"); writer.string(thumbnail(item))
        writer.key("currency"); writer.string(item.currency)
        writer.key("price"); writer.double(item.price)
        if !isV2b { writer.key("description"); writer.string(item.descriptions) }
        writePricesAndDates(item, to: &writer)
        writer.key("images")
        writer.beginArray()
        for (index, file) in item.imageFileNames.enumerated() {
            writer.beginObject()
            writer.key("id"); writer.integer((item.id - 1) * 5 + Int64(index + 1))
            writer.key("url"); writer.string("\(baseURL)/images/\(file)")
            writer.key("thumbnail_url"); writer.string("\(baseURL)/thumbnails/\(file)")
            if !isV2b { writer.key("succeed"); writer.bool(true) }
            writer.key("issued_at"); writer.string(issued)
            writer.endObject()
        }
        writer.endArray()
        writer.key("vendors")
        writer.beginObject()
        if isV2b {
            writer.key("id"); writer.integer(item.vendorID)
            writer.key("name"); writer.string(vendors.name(of: item.vendorID))
        } else {
            let registered = date(VendorDirectory.registeredAt)
            writer.key("name"); writer.string(vendors.name(of: item.vendorID))
            writer.key("id"); writer.integer(item.vendorID)
            writer.key("created_at"); writer.string(registered)
            writer.key("issued_at"); writer.string(registered)
        }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    private func writePages(_ rows: ArraySlice<DemoItem>, to writer: inout SpringJSONWriter) {
        writer.key("pages")
        writer.beginArray()
        for item in rows {
            writer.beginObject()
            writer.key("id"); writer.integer(item.id)
            writer.key("vendor_id"); writer.integer(item.vendorID)
            if isV2b { writer.key("vendorName"); writer.string(vendors.name(of: item.vendorID)) }
            writer.key("name"); writer.string(item.title)
            if isV2b { writer.key("description"); writer.string(item.descriptions) }
            writer.key("thumbnail"); writer.string(thumbnail(item))
            writer.key("currency"); writer.string(item.currency)
            writer.key("price"); writer.double(item.price)
            writePricesAndDates(item, to: &writer)
            writer.endObject()
        }
        writer.endArray()
    }

    /// `bargain_price, discounted_price, stock, created_at, issued_at`.
    private func writePricesAndDates(_ item: DemoItem, to writer: inout SpringJSONWriter) {
        let issued = date(item.registrationDate)
        writer.key("bargain_price"); writer.double(item.bargainPrice)
        writer.key("discounted_price"); writer.double(item.discountAmount)
        writer.key("stock"); writer.integer(item.stock)
        writer.key("created_at"); writer.string(issued)
        writer.key("issued_at"); writer.string(issued)
    }

    private func thumbnail(_ item: DemoItem) -> String {
        "\(baseURL)/thumbnails/\(item.imageFileNames.first ?? "\(item.id)-1.png")"
    }

    private func date(_ epochSeconds: Decimal) -> String {
        SeoulDateTime.format(epochSeconds: epochSeconds, fractionDigits: isV2b ? 0 : 2)
    }
}
