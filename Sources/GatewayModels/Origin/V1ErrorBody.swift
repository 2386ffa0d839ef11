import GatewaySupport

/// A v1 error body (Vapor's default): `{"error": true, "reason": "…"}`.
///
/// Seen with messages such as `Not Found` and `The number of images must be 5 or less`; no
/// HTTP status was ever captured with them. The gateway can decode a non-2xx v1 body with this
/// to put the origin's `reason` in its logs or a problem's `detail`.
public struct V1ErrorBody: Sendable, Hashable, JSONShapeDecodable {
    public var error: Bool
    public var reason: String

    public init(reading c: JSONObjectReader) throws(JSONShapeError) {
        error = try c.boolIfPresent("error") ?? false
        reason = try c.string("reason")
    }
}
