import GatewaySupport

/// Who sent a request, as its verified bearer token says (sign-in at the edge, `--auth-issuer`).
public struct RequestIdentity: Sendable, Hashable {
    /// `iss`: the identity provider.
    public let issuer: String
    /// `sub`: the user (the access line's `user`, the per-user rate-limit key).
    public let subject: String
    public let scopes: Set<String>
    /// Every claim as the token carries it (the vendor claim is read from here).
    public let claims: [String: JSONValue]

    public init(issuer: String, subject: String, scopes: Set<String>, claims: [String: JSONValue]) {
        self.issuer = issuer
        self.subject = subject
        self.scopes = scopes
        self.claims = claims
    }
}

/// What authentication decided for one request, in `ServerApplication.classify`.
public enum RequestAuthentication: Sendable {
    /// No token was presented and none is needed (or authentication is off).
    case anonymous
    case verified(RequestIdentity)
    /// Answered with this problem (401, 403 or 503) and nothing else: no stored answer, no
    /// handler.
    case refused(GatewayError)
    /// The token names a key the set lacks and the set is being fetched again: the
    /// application judges the token once that fetch ends (never from a stored answer).
    case awaitingKeys(any Sendable)
}
