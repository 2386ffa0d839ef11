import HTTPInterface

/// An error as the demo v2/v2b origin answers it: a status and a short reason as plain
/// text (`text/plain; charset=utf-8`), never JSON. (No error body of the real server was
/// ever captured; plain text makes a gateway that expects JSON there fail loudly.)
///
/// Statuses: 404 unknown product, token or path; 400 a bad query or body, a missing
/// `identifier` header, a `secret` that is not the vendor's, a wrong product secret; 401 an
/// unknown `identifier`; 403 another vendor's product; 500 injected faults.
struct V2Failure: Error, Sendable, Equatable {
    let status: Int
    let reason: String

    static let productNotFound = V2Failure(status: 404, reason: "product not found")
    static let notFound = V2Failure(status: 404, reason: "not found")
    static let identifierRequired = V2Failure(status: 400, reason: "identifier header is required")
    static let unknownIdentifier = V2Failure(status: 401, reason: "unknown identifier")
    static let secretMismatch = V2Failure(status: 400, reason: "secret does not match the identifier")
    static let otherVendor = V2Failure(status: 403, reason: "product belongs to another vendor")
    static let wrongProductSecret = V2Failure(status: 400, reason: "wrong product secret")
    static let discountAbovePrice = V2Failure(status: 400, reason: "discounted_price must not exceed the price")
    static let injected = V2Failure(status: 500, reason: "internal server error")

    static func badRequest(_ reason: String) -> V2Failure {
        V2Failure(status: 400, reason: reason)
    }

    var response: GatewayResponse { .plainText(reason, status: status) }
}

extension GatewayResponse {
    /// The content type of every plain-text answer of the v2/v2b origin.
    static let plainTextContentType = "text/plain; charset=utf-8"

    static func plainText(_ text: String, status: Int = 200) -> GatewayResponse {
        GatewayResponse(status: status, headers: ["Content-Type": plainTextContentType], body: Array(text.utf8))
    }
}
