/// Why a bearer token is not accepted. Its ``detail`` goes into the 401 answer's problem (and
/// the log): it names the check that failed, never the token or a claim's value.
public enum TokenRejection: Error, Sendable, Hashable {
    /// Over ``CompactToken/maxLength`` bytes.
    case tooLong
    /// Not three base64url segments of JSON objects (or a JSON rule broken: a member named
    /// twice, too deep, too many values).
    case malformed(String)
    /// `alg` is `none`, an HMAC algorithm, or one the operator did not allow.
    case algorithmNotAllowed(String)
    /// The header has `crit`: no extension is understood, so every such token is refused
    /// (RFC 7515 §4.1.11).
    case criticalHeader
    /// `typ` is neither `JWT` nor `at+jwt` (an ID token's or a logout token's type, say).
    case wrongType
    /// No key of the set has the token's `kid` (a refetch of the set may find it).
    case unknownKey
    /// The token names no `kid` and the set holds more than one key.
    case keyNotNamed
    /// The `kid`'s key is of another type or algorithm than the token's `alg`.
    case keyMismatch
    /// The signature does not verify (or has the wrong length: an ES256 signature in DER).
    case badSignature
    /// A required claim is missing or of the wrong type.
    case claim(String)
    case wrongIssuer
    case wrongAudience
    case expired
    case notYetValid
    case issuedInFuture

    /// One sentence for the problem's `detail`.
    public var detail: String {
        switch self {
        case .tooLong: "The bearer token is longer than \(CompactToken.maxLength) bytes."
        case .malformed(let why): "The bearer token is not a signed JWT: \(why)."
        case .algorithmNotAllowed(let algorithm): "The bearer token's algorithm \(Self.quoted(algorithm)) is not accepted."
        case .criticalHeader: "The bearer token has critical header extensions (crit), which are not supported."
        case .wrongType: "The bearer token's type (typ) is not an access token's (JWT or at+jwt)."
        case .unknownKey: "The bearer token's key (kid) is not in the identity provider's key set."
        case .keyNotNamed: "The bearer token names no key (kid) and the identity provider's key set holds several."
        case .keyMismatch: "The bearer token's key (kid) does not match its algorithm (alg)."
        case .badSignature: "The bearer token's signature is not valid."
        case .claim(let why): "The bearer token's claims are not usable: \(why)."
        case .wrongIssuer: "The bearer token was issued by another issuer (iss)."
        case .wrongAudience: "The bearer token is not meant for this API (aud)."
        case .expired: "The bearer token has expired (exp)."
        case .notYetValid: "The bearer token is not valid yet (nbf)."
        case .issuedInFuture: "The bearer token's issue time (iat) is in the future."
        }
    }

    /// A short name for metrics and logs: `expired`, `bad_signature`, ….
    public var reason: String {
        switch self {
        case .tooLong: "too_long"
        case .malformed: "malformed"
        case .algorithmNotAllowed: "algorithm"
        case .criticalHeader: "crit"
        case .wrongType: "type"
        case .unknownKey: "unknown_key"
        case .keyNotNamed: "no_kid"
        case .keyMismatch: "key_mismatch"
        case .badSignature: "bad_signature"
        case .claim: "claims"
        case .wrongIssuer: "issuer"
        case .wrongAudience: "audience"
        case .expired: "expired"
        case .notYetValid: "not_yet_valid"
        case .issuedInFuture: "issued_in_future"
        }
    }

    /// An algorithm name from a token, bounded and printable (it is the client's text).
    private static func quoted(_ text: String) -> String {
        let shown = text.unicodeScalars.prefix(16).map { $0.isASCII && $0.value >= 0x20 && $0 != "\"" ? Character($0) : "?" }
        return "\"" + String(shown) + (text.unicodeScalars.count > 16 ? "…" : "") + "\""
    }
}
