/// A v1 list page (`GET /items/{page}`): `{"page", "items"}`, 20 items per full page.
public struct V1ItemsPage: Sendable, Hashable, Decodable {
    public var page: Int
    public var items: [V1Item]
}
