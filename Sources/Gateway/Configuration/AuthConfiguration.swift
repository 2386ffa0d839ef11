import Authentication

/// Sign-in at the edge (`--auth-*`): on when set (`GatewayConfiguration.auth`). Bearer tokens
/// are verified against the identity provider's key set; see docs/authentication.md.
public struct AuthConfiguration: Sendable {
    /// Where a request must carry a token (`--auth-required`).
    public enum Required: String, Sendable, CaseIterable {
        /// Creates, updates and deletes of products.
        case writes
        /// Everything under `/v1/products` (images, health, readiness and metrics stay open).
        case all
    }

    /// `--auth-issuer`: `iss` must equal it exactly; without a key set URL or file its
    /// OpenID Connect discovery document names the key set.
    public var issuer: String
    /// `--auth-audience`: at least one.
    public var audiences: [String]
    /// `--auth-jwks-url`, instead of discovery.
    public var keySetURL: String?
    /// `--auth-jwks-file`, instead of discovery (re-read at each refresh).
    public var keySetFile: String?
    /// `--auth-ca-file`: CAs trusted for the identity provider instead of the system's.
    public var caFile: String?
    public var algorithms: [SigningAlgorithm] = SigningAlgorithm.defaults
    /// `--auth-clock-skew`.
    public var clockSkew: Duration = .seconds(60)
    public var required: Required = .writes
    /// `--auth-write-scope`: a scope writes need; nil for none.
    public var writeScope: String?
    /// `--vendor-credentials-file`: v2/v2b vendor credentials the gateway writes with for a
    /// verified token's vendor; nil: clients send the vendor secret as `password`.
    public var vendorCredentialsFile: String?
    /// `--auth-vendor-claim`: the claim whose string value names the token's vendor in
    /// that file.
    public var vendorClaim = "vendor"
    /// The least time between two key set fetches for unknown `kid`s (the first load counts).
    /// Not a flag: tests shorten it.
    var refetchSpacing: Duration = .seconds(30)
    /// How soon a failed key set fetch is tried again in the background. Not a flag.
    var retryAfterFailure: Duration = .seconds(30)

    public init(issuer: String, audiences: [String]) {
        self.issuer = issuer
        self.audiences = audiences
    }

    /// Checks a URL the gateway would fetch from (the issuer, a key set URL): https, or
    /// http on 127.0.0.1, ::1 or localhost.
    /// - Throws: an error whose description says what is wrong.
    public static func checkURL(_ url: String, role: String) throws {
        try KeySetDocuments.check(url, role: role)
    }

    /// The verifier's policy.
    var policy: TokenPolicy {
        TokenPolicy(issuer: issuer, audiences: audiences, algorithms: algorithms, clockSkew: clockSkew.components.seconds)
    }

    /// Where the key set comes from.
    var keySource: KeySetSource {
        if let keySetFile { return .file(keySetFile) }
        if let keySetURL { return .url(keySetURL) }
        return .discovery(issuer: issuer)
    }
}

/// Where an identity provider's key set is read from.
enum KeySetSource: Sendable, Hashable {
    case file(String)
    case url(String)
    /// `<issuer>/.well-known/openid-configuration`, whose `jwks_uri` names the set.
    case discovery(issuer: String)
}
