/// What a token must satisfy: the operator's `--auth-*` settings.
public struct TokenPolicy: Sendable, Hashable {
    /// `--auth-issuer`: `iss` must equal it exactly.
    public var issuer: String
    /// `--auth-audience`: `aud` must name at least one.
    public var audiences: [String]
    /// `--auth-algorithms`.
    public var algorithms: [SigningAlgorithm]
    /// `--auth-clock-skew`, in seconds: how far the clocks of the provider and the gateway
    /// may disagree (`exp`, `nbf`, `iat`).
    public var clockSkew: Int64

    public init(issuer: String, audiences: [String], algorithms: [SigningAlgorithm] = SigningAlgorithm.defaults, clockSkew: Int64 = 60) {
        self.issuer = issuer
        self.audiences = audiences
        self.algorithms = algorithms
        self.clockSkew = clockSkew
    }
}

/// A token that passed every check.
public struct VerifiedToken: Sendable, Hashable {
    public let subject: String
    public let issuer: String
    public let scopes: Set<String>
    /// `exp`, seconds since 1970: a remembered token is checked against it on every use.
    public let expiresAt: Int64
    /// The `kid` of the key that verified it: when that key leaves the set, the remembered
    /// token goes too.
    public let keyID: String?
    public let claims: TokenClaims
}

/// Verifies bearer tokens against a key set and a policy. Pure (the clock is an argument)
/// and thread-safe; each call costs one public-key verification, which the caller keeps off
/// its event loop or remembers (the gateway caches verified tokens by digest).
public enum TokenVerifier {
    /// Reads and verifies `token`, in this order: its form (``CompactToken/read(_:)``), its
    /// algorithm against `policy`, the key (`kid`) in `keys`, the signature, then `iss`,
    /// `aud`, `exp`, `nbf` and `iat` against `now` (seconds since 1970) with the policy's
    /// skew. A forged token is refused for its signature before its claims are judged.
    /// - Throws: ``TokenRejection``: `.unknownKey` is the one a refetch of the set may cure.
    public static func verify(_ token: some Collection<UInt8>, keys: JSONWebKeySet, policy: TokenPolicy, now: Int64) throws(TokenRejection) -> VerifiedToken {
        let read = try CompactToken.read(token)
        guard let algorithm = SigningAlgorithm(rawValue: read.header.algorithm), policy.algorithms.contains(algorithm) else {
            throw .algorithmNotAllowed(read.header.algorithm)
        }
        let candidates = try keys.candidates(for: read.header, algorithm: algorithm)
        guard let key = candidates.first(where: { $0.isValid(read.signature, of: algorithm, over: read.signingInput) }) else {
            throw .badSignature
        }
        let claims = read.claims
        guard claims.issuer == policy.issuer else { throw .wrongIssuer }
        guard claims.audiences.contains(where: policy.audiences.contains) else { throw .wrongAudience }
        guard now < claims.expiresAt + policy.clockSkew else { throw .expired }
        if let notBefore = claims.notBefore, now + policy.clockSkew < notBefore { throw .notYetValid }
        if let issuedAt = claims.issuedAt, issuedAt > now + policy.clockSkew { throw .issuedInFuture }
        return VerifiedToken(
            subject: claims.subject, issuer: claims.issuer, scopes: claims.scopes, expiresAt: claims.expiresAt, keyID: key.id, claims: claims)
    }
}
