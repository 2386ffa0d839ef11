import Foundation
// scripts/fuzz compiles the token reader into one module with GatewayModels' sources (on
// GatewaySupport, a module of its own there too).
import GatewaySupport
#if canImport(GatewayModels)
import GatewayModels
#endif

/// A token's claims (RFC 7519 §4.1, RFC 9068 §2.2): the registered ones read and
/// type-checked, the rest kept for the claims the operator names (the vendor claim).
public struct TokenClaims: Sendable, Hashable {
    public let issuer: String
    /// `sub`: 1 to 255 visible ASCII characters (providers' subjects are ids: `auth0|…`, UUIDs).
    public let subject: String
    /// `aud`: one string or an array of strings.
    public let audiences: [String]
    /// `exp`, `nbf`, `iat` in whole seconds since 1970 (fractions dropped).
    public let expiresAt: Int64
    public let notBefore: Int64?
    public let issuedAt: Int64?
    /// `scope` (space-separated, RFC 9068 / RFC 8693) or else `scp` (an array, or a
    /// space-separated string as some providers send it).
    public let scopes: Set<String>
    /// Every claim as sent.
    public let all: [String: JSONValue]

    /// The latest date a claim may hold (9999-12-31T23:59:59Z): past it a number is taken
    /// for a mistake (milliseconds), not for a token valid for ever.
    static let latestDate: Int64 = 253_402_300_799

    /// - Throws: ``TokenRejection/claim(_:)`` when `iss`, `sub` or `exp` is missing (an
    ///   access token carries all three: RFC 9068 §2.2), or any registered claim has the
    ///   wrong type; `aud` may be missing here (the verifier then refuses the token).
    init(_ members: [String: JSONValue]) throws(TokenRejection) {
        all = members
        issuer = try Self.string(members, "iss", required: true)!
        subject = try Self.string(members, "sub", required: true)!
        // It names the user in access lines and rate-limit keys: printable, bounded.
        guard (1...255).contains(subject.utf8.count), subject.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw .claim("the subject (sub) is not 1 to 255 visible ASCII characters")
        }
        switch members["aud"] {
        case nil: audiences = []
        case .string(let audience): audiences = [audience]
        case .array(let elements):
            var audiences: [String] = []
            for element in elements {
                guard case .string(let audience) = element else { throw .claim("the audience (aud) is not a string or an array of strings") }
                audiences.append(audience)
            }
            self.audiences = audiences
        default: throw .claim("the audience (aud) is not a string or an array of strings")
        }
        guard let expiresAt = try Self.date(members, "exp") else { throw .claim("it has no expiry (exp)") }
        self.expiresAt = expiresAt
        notBefore = try Self.date(members, "nbf")
        issuedAt = try Self.date(members, "iat")
        switch (members["scope"], members["scp"]) {
        case (.string(let scope), _), (nil, .string(let scope)):
            scopes = Set(scope.split(separator: " ").map(String.init))
        case (nil, .array(let elements)):
            var scopes = Set<String>()
            for element in elements {
                guard case .string(let scope) = element else { throw .claim("the scopes (scp) are not strings") }
                scopes.insert(scope)
            }
            self.scopes = scopes
        case (nil, nil): scopes = []
        default: throw .claim("the scope (scope or scp) is not a string or an array of strings")
        }
    }

    private static func string(_ members: [String: JSONValue], _ name: String, required: Bool) throws(TokenRejection) -> String? {
        switch members[name] {
        case .string(let value): return value
        case nil where !required: return nil
        case nil: throw .claim("it has no \(name)")
        default: throw .claim("\(name) is not a string")
        }
    }

    /// A NumericDate (RFC 7519 §2): a JSON number of seconds, fractions allowed.
    private static func date(_ members: [String: JSONValue], _ name: String) throws(TokenRejection) -> Int64? {
        switch members[name] {
        case nil: return nil
        case .number(let value):
            guard value >= 0, value <= Decimal(latestDate) else { throw .claim("\(name) is not a date in seconds") }
            var value = value
            var whole = Decimal()
            NSDecimalRound(&whole, &value, 0, .down)
            return NSDecimalNumber(decimal: whole).int64Value
        default: throw .claim("\(name) is not a number")
        }
    }
}
