import GatewayModels
import GatewaySupport

/// The v1 response bodies, snake_case, keys in the order of the v1 samples:
/// `id, title, [descriptions], price, currency, stock, [discounted_price], thumbnails,
/// [images], registration_date`. `discounted_price` is absent when there is no discount;
/// image URLs are absolute, on the origin's own base URL.
enum ItemJSON {
    /// `{"page": n, "items": [summary, …]}`.
    static func page(_ page: Int, items: [DemoItem], baseURL: String) -> [UInt8] {
        var writer = JSONWriter(capacity: 512 * max(1, items.count))
        writer.beginObject()
        writer.key("page"); writer.integer(Int64(page))
        writer.key("items")
        writer.beginArray()
        for item in items { write(item, detail: false, baseURL: baseURL, to: &writer) }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// One item with `descriptions` and `images` (GET, POST, PATCH, DELETE).
    static func detail(_ item: DemoItem, baseURL: String) -> [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        write(item, detail: true, baseURL: baseURL, to: &writer)
        return writer.bytes
    }

    private static func write(_ item: DemoItem, detail: Bool, baseURL: String, to writer: inout JSONWriter) {
        let files = item.imageFileNames
        writer.beginObject()
        writer.key("id"); writer.integer(item.id)
        writer.key("title"); writer.string(item.title)
        if detail { writer.key("descriptions"); writer.string(item.descriptions) }
        writer.key("price"); writer.decimal(item.price)
        writer.key("currency"); writer.string(item.currency)
        writer.key("stock"); writer.integer(item.stock)
        if let discountedPrice = item.discountedPrice { writer.key("discounted_price"); writer.decimal(discountedPrice) }
        writer.key("thumbnails"); writer.strings(files.map { "\(baseURL)/thumbnails/\($0)" })
        if detail { writer.key("images"); writer.strings(files.map { "\(baseURL)/images/\($0)" }) }
        writer.key("registration_date"); writer.decimal(item.registrationDate)
        writer.endObject()
    }
}
