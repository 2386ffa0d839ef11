import GatewayModels
import GatewaySupport

/// The body of the v2 `POST /api/products/{id}/secret` and the v2b
/// `POST /api/products/{id}/archived`: a JSON object with the vendor's `secret`.
enum V2SecretBody {
    /// The `secret` member of `body`.
    /// - Throws: ``V2Failure`` 400 when the body is not a JSON object or has no non-empty
    ///   string `secret`.
    static func secret(in body: [UInt8]) throws(V2Failure) -> String {
        guard case .object(let members)? = JSONValue.parse(body) else { throw .badRequest("body must be a JSON object with a secret") }
        guard case .string(let secret)? = members["secret"], !secret.isEmpty else { throw .badRequest("secret is required") }
        return secret
    }
}
