import GatewaySupport

/// One entry of a v2/v2b detail's `images`: `{id, url, thumbnail_url, succeed?, issued_at}`.
/// Only `url` is required; the others vary between v2 and v2b.
public struct V2ProductImage: Sendable, Hashable, JSONShapeDecodable {
    public var id: Int64?
    /// The full-size image URL.
    public var url: String
    public var thumbnailURL: String?

    public init(reading c: JSONObjectReader) throws(JSONShapeError) {
        id = try c.int64IfPresent("id")
        url = try c.string("url")
        thumbnailURL = try c.stringIfPresent("thumbnail_url")
    }
}
