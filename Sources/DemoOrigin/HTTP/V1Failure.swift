import GatewayModels
import HTTPInterface
import GatewaySupport

/// An error as the v1 server (Vapor) answered it: a status and
/// `{"error": true, "reason": "…"}` as `application/json; charset=utf-8`.
///
/// Statuses: 404 unknown item or path, 400 malformed or missing fields (and more than five
/// images), 403 wrong password, 415 a body that is not multipart/form-data (POST, PATCH) or
/// JSON (DELETE), 500 injected faults.
struct V1Failure: Error, Sendable, Equatable {
    let status: Int
    let reason: String

    static let notFound = V1Failure(status: 404, reason: "Not Found")
    static let wrongPassword = V1Failure(status: 403, reason: "The password does not match")
    static let tooManyImages = V1Failure(status: 400, reason: "The number of images must be 5 or less")
    static let injected = V1Failure(status: 500, reason: "Internal Server Error")

    static func badRequest(_ reason: String) -> V1Failure {
        V1Failure(status: 400, reason: reason)
    }

    static func unsupportedMediaType(_ expected: String) -> V1Failure {
        V1Failure(status: 415, reason: "Unsupported Media Type: expected \(expected)")
    }

    var response: GatewayResponse {
        var writer = JSONWriter(capacity: 64)
        writer.beginObject()
        writer.key("error"); writer.bool(true)
        writer.key("reason"); writer.string(reason)
        writer.endObject()
        return .v1JSON(writer.bytes, status: status)
    }
}

extension GatewayResponse {
    /// Vapor's JSON content type.
    static let v1ContentType = "application/json; charset=utf-8"

    static func v1JSON(_ body: [UInt8], status: Int = 200) -> GatewayResponse {
        GatewayResponse(status: status, headers: ["Content-Type": v1ContentType], body: body)
    }
}
