import GatewayModels
import HTTPInterface
import GatewaySupport

/// `include` of `GET /v1/products` and `GET /v1/products/{id}`: absent, or `placeholders`
/// (each image's size and ThumbHash in the answer). Any other value is refused. Pure; any
/// thread.
enum IncludeParameter {
    static let placeholders = "placeholders"
    static let invalid = FieldError(field: "include", message: "must be placeholders.")

    /// Whether placeholders are asked for; nil for a value that is refused (``invalid``).
    static func parse(_ request: GatewayRequest) -> Bool? {
        guard let value = request.queryValue("include") else { return false }
        return value == placeholders ? true : nil
    }

    /// The same from plain bytes; nil when the stored path cannot judge it (encoded, or a
    /// value the routed path refuses).
    static func parseStored(_ request: RequestBytes) -> Bool? {
        switch request.queryValue("include") {
        case .absent: false
        case .plain(let bytes): bytes.elementsEqual(placeholders.utf8) ? true : nil
        case .encoded: nil
        }
    }
}
