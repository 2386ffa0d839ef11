import HTTPInterface

/// The errors of sign-in (RFC 6750): a token missing, failing a check, or short of a scope.
extension GatewayError {
    /// 401 for a bearer token that failed a check (RFC 6750 §3.1 `invalid_token`): `detail`
    /// says which, never the token.
    public static func invalidToken(_ detail: String) -> GatewayError {
        GatewayError(
            status: 401, type: typePrefix + "invalid-token", title: "Invalid bearer token", detail: detail,
            headers: ["WWW-Authenticate": #"Bearer error="invalid_token""#])
    }

    /// 401 for a request that needs a bearer token and has none (RFC 6750 §3: a bare challenge).
    public static func tokenRequired() -> GatewayError {
        GatewayError(
            status: 401, type: typePrefix + "token-required", title: "Sign-in required",
            detail: "This request needs a bearer token (Authorization: Bearer …) from the identity provider.",
            headers: ["WWW-Authenticate": "Bearer"])
    }

    /// 403 for a verified token without `scope` (RFC 6750 §3.1 `insufficient_scope`).
    public static func insufficientScope(_ scope: String) -> GatewayError {
        GatewayError(
            status: 403, type: typePrefix + "insufficient-scope", title: "Insufficient scope",
            detail: "This request needs a token with the scope \(scope).",
            headers: ["WWW-Authenticate": #"Bearer error="insufficient_scope", scope="\#(scope)""#])
    }
}
