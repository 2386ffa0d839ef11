import GatewaySupport

/// A v2/v2b detail's `vendors` object: v2 `{name, id, created_at, issued_at}`, v2b `{id, name}`.
/// Only the id and the name are read.
public struct V2Vendor: Sendable, Hashable, JSONShapeDecodable {
    public var id: Int64?
    public var name: String?

    public init(reading c: JSONObjectReader) throws(JSONShapeError) {
        id = try c.int64IfPresent("id")
        name = try c.stringIfPresent("name")
    }
}
