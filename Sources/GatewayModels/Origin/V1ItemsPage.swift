import GatewaySupport

/// A v1 list page (`GET /items/{page}`): `{"page", "items"}`, 20 items per full page.
public struct V1ItemsPage: Sendable, Hashable, JSONShapeDecodable {
    public var page: Int?
    public var items: [V1Item]

    public init(page: Int?, items: [V1Item]) {
        self.page = page
        self.items = items
    }

    public init(reading c: JSONObjectReader) throws(JSONShapeError) {
        page = try c.intIfPresent("page")
        items = try c.objects("items", V1Item.init(reading:))
    }
}
