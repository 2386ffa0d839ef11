import GatewaySupport

/// One page of the product list (`GET /v1/products?page=N`): `{page, items, hasNextPage}`.
public struct ProductPage: Sendable, Hashable {
    /// The page number, from 1.
    public var page: Int
    public var items: [ProductSummary]
    /// Whether asking for `page + 1` can give more items.
    public var hasNextPage: Bool

    public init(page: Int, items: [ProductSummary], hasNextPage: Bool) {
        self.page = page
        self.items = items
        self.hasNextPage = hasNextPage
    }
}

extension ProductPage: ContractJSONEncodable {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("page"); writer.integer(Int64(page))
        writer.key("items")
        writer.beginArray()
        for item in items { item.write(to: &writer) }
        writer.endArray()
        writer.key("hasNextPage"); writer.bool(hasNextPage)
        writer.endObject()
    }
}
