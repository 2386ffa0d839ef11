import HTTPInterface

/// The errors of request admission: a spent rate-limit budget, and sign-in keys not loaded yet.
extension GatewayError {
    /// 429: the client spent its budget (`policy`); `Retry-After` says when one more
    /// request fits. The transport adds the `RateLimit` fields.
    public static func rateLimited(policy: String, retryAfterSeconds: Int) -> GatewayError {
        GatewayError(
            status: 429, type: typePrefix + "rate-limited", title: "Too many requests",
            detail: "This client has used its \(policy) budget; retry after \(retryAfterSeconds) s.",
            headers: ["Retry-After": String(retryAfterSeconds)])
    }

    /// 503 while the identity provider's keys have never loaded: a token cannot be judged yet.
    public static func authKeysUnavailable(retryAfterSeconds: Int) -> GatewayError {
        GatewayError(
            status: 503, type: typePrefix + "auth-keys-unavailable", title: "Sign-in unavailable",
            detail: "The identity provider's keys have not been loaded yet; retry after \(retryAfterSeconds) s.",
            headers: ["Retry-After": String(retryAfterSeconds)])
    }
}
