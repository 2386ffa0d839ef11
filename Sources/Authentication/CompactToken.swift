// scripts/fuzz compiles the token reader into one module with GatewayModels' sources (on
// GatewaySupport, a module of its own there too).
import GatewaySupport
#if canImport(GatewayModels)
import GatewayModels
#endif

/// A bearer token read, not yet verified: a JWS in compact serialisation (RFC 7515 §7.1),
/// `base64url(header) "." base64url(claims) "." base64url(signature)`, whose header and
/// claims are JSON objects. The reader is the strict gate before any key is looked at:
/// bounded size, canonical base64url, JSON without a member named twice (a second `exp`
/// or `aud` must not slip past one parser and into another), bounded depth and count,
/// `crit` refused, `typ` an access token's. Pure, no I/O; fuzzed (scripts/fuzz jwt).
public struct CompactToken: Sendable {
    /// The longest token read (8 KiB): providers' access tokens are about 1 KiB; a header
    /// this size is far over what a client should send.
    public static let maxLength = 8192
    /// Bounds of the header's JSON (a few members; `jwk` or `x5c` arrays at most).
    static let headerLimits = JSONParser.Limits.strict(maxDepth: 4, maxValues: 64)
    /// Bounds of the claims' JSON (providers add roles and groups; not thousands).
    static let claimsLimits = JSONParser.Limits.strict(maxDepth: 8, maxValues: 512)

    public let header: TokenHeader
    public let claims: TokenClaims
    /// The bytes signed: the first two segments and the dot between them, as sent.
    public let signingInput: [UInt8]
    public let signature: [UInt8]

    /// Reads `text` (the `Authorization` header's value after `Bearer `).
    /// - Throws: ``TokenRejection`` `.tooLong`, `.malformed`, `.criticalHeader`, `.wrongType`,
    ///   `.claim`; never looks at keys or the clock.
    public static func read(_ text: some Collection<UInt8>) throws(TokenRejection) -> CompactToken {
        guard text.count <= maxLength else { throw .tooLong }
        let bytes = Array(text)
        let dots = bytes.indices.filter { bytes[$0] == UInt8(ascii: ".") }
        guard dots.count == 2 else {
            throw .malformed(dots.count == 4 ? "an encrypted token (JWE) is not accepted" : "a JWT has three parts separated by dots")
        }
        guard let headerBytes = Base64URL.decode(bytes[..<dots[0]]) else { throw .malformed("its header is not base64url") }
        guard let claimsBytes = Base64URL.decode(bytes[(dots[0] + 1)..<dots[1]]) else { throw .malformed("its claims are not base64url") }
        guard let signature = Base64URL.decode(bytes[(dots[1] + 1)...]) else { throw .malformed("its signature is missing or not base64url") }
        let header = try TokenHeader(try object(headerBytes, limits: headerLimits, part: "header is"))
        let claims = try TokenClaims(try object(claimsBytes, limits: claimsLimits, part: "claims are"))
        return CompactToken(header: header, claims: claims, signingInput: Array(bytes[..<dots[1]]), signature: signature)
    }

    /// `part`: "header is" or "claims are", for the rejection's wording.
    private static func object(_ bytes: [UInt8], limits: JSONParser.Limits, part: String) throws(TokenRejection) -> [String: JSONValue] {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, limits: limits)
        } catch {
            throw .malformed("its \(part) not valid JSON (\(error.reason))")
        }
        guard case .object(let members) = value else { throw .malformed("its \(part) not a JSON object") }
        return members
    }
}

/// A token's JOSE header (RFC 7515 §4): what the reader keeps of it.
public struct TokenHeader: Sendable, Hashable {
    /// `alg` as sent (checked against the allowed list by the verifier, so that the answer
    /// can say which algorithm was refused).
    public let algorithm: String
    /// `kid`, when sent.
    public let keyID: String?

    /// - Throws: ``TokenRejection`` when `alg` is missing or not a string, `kid` not a
    ///   string, `crit` present, or `typ` not `JWT` or `at+jwt` (RFC 9068 §2.1; media types
    ///   compare without case, and `application/` may be written).
    init(_ members: [String: JSONValue]) throws(TokenRejection) {
        if members["crit"] != nil { throw .criticalHeader }
        guard case .string(let algorithm) = members["alg"] else { throw .malformed("its header has no algorithm (alg)") }
        self.algorithm = algorithm
        switch members["kid"] {
        case nil: keyID = nil
        case .string(let keyID): self.keyID = keyID
        default: throw .malformed("its key id (kid) is not a string")
        }
        switch members["typ"] {
        case nil: break
        case .string(let type):
            var type = type.lowercased()
            if type.hasPrefix("application/") { type.removeFirst("application/".count) }
            guard type == "jwt" || type == "at+jwt" else { throw .wrongType }
        default: throw .wrongType
        }
    }
}
