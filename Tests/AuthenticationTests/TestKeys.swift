import Crypto
import Foundation
import GatewayModels
import _CryptoExtras

@testable import Authentication
import GatewaySupport

/// Keys made once per test process, and tokens signed with them as an identity provider
/// would (RFC 7515 compact serialisation, raw `r‖s` ECDSA signatures).
enum TestKeys {
    static let rsa = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
    nonisolated(unsafe) static let p256 = P256.Signing.PrivateKey()
    nonisolated(unsafe) static let p384 = P384.Signing.PrivateKey()
    nonisolated(unsafe) static let ed25519 = Curve25519.Signing.PrivateKey()

    static let issuer = "https://id.example.com/"
    static let audience = "open-market-api"
    /// The tests' "now": 2026-11-26T00:00:00Z.
    static let now: Int64 = 1_795_651_200

    /// The public keys as a key set's members, `kid` `rsa-1`, `ec-1`, `ec384-1`, `ed-1`.
    static var rsaJWK: String {
        let primitives = try! rsa.publicKey.getKeyPrimitives()
        return #"{"kty":"RSA","kid":"rsa-1","use":"sig","n":"\#(Base64URL.encode(primitives.modulus))","e":"\#(Base64URL.encode(primitives.publicExponent))"}"#
    }
    static var p256JWK: String {
        let point = Array(p256.publicKey.x963Representation.dropFirst())
        return #"{"kty":"EC","kid":"ec-1","crv":"P-256","x":"\#(Base64URL.encode(point[..<32]))","y":"\#(Base64URL.encode(point[32...]))"}"#
    }
    static var p384JWK: String {
        let point = Array(p384.publicKey.x963Representation.dropFirst())
        return #"{"kty":"EC","kid":"ec384-1","crv":"P-384","alg":"ES384","x":"\#(Base64URL.encode(point[..<48]))","y":"\#(Base64URL.encode(point[48...]))"}"#
    }
    static var ed25519JWK: String {
        #"{"kty":"OKP","kid":"ed-1","crv":"Ed25519","x":"\#(Base64URL.encode(ed25519.publicKey.rawRepresentation))"}"#
    }

    static func keySet(_ members: [String]) throws -> JSONWebKeySet {
        try JSONWebKeySet.read(Array(#"{"keys":[\#(members.joined(separator: ","))]}"#.utf8))
    }

    static var allKeys: JSONWebKeySet { try! keySet([rsaJWK, p256JWK, p384JWK, ed25519JWK]) }

    /// Claims that pass `policy`, with `extra` members spliced in (raw JSON, no braces).
    static func claims(_ extra: String = "") -> String {
        #"{"iss":"\#(issuer)","sub":"seller-7","aud":"\#(audience)","exp":\#(now + 300),"iat":\#(now - 10),"scope":"products:write openid"\#(extra.isEmpty ? "" : "," + extra)}"#
    }

    static let policy = TokenPolicy(
        issuer: issuer, audiences: [audience], algorithms: [.rs256, .ps256, .es256, .es384, .edDSA], clockSkew: 60)

    /// A token with `header` and `claims` (raw JSON), signed with the key `alg` names.
    static func token(header: String, claims: String = claims(), der: Bool = false) -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return input + "." + Base64URL.encode(sign(Array(input.utf8), header: header, der: der))
    }

    static func token(alg: String, kid: String?, claims: String = claims()) -> String {
        token(header: #"{"alg":"\#(alg)","typ":"JWT"\#(kid.map { #","kid":"\#($0)""# } ?? "")}"#, claims: claims)
    }

    private static func sign(_ input: [UInt8], header: String, der: Bool) -> [UInt8] {
        if header.contains(#""alg":"RS256""#) {
            return Array(try! rsa.signature(for: SHA256.hash(data: input), padding: .insecurePKCS1v1_5).rawRepresentation)
        }
        if header.contains(#""alg":"RS384""#) {
            return Array(try! rsa.signature(for: SHA384.hash(data: input), padding: .insecurePKCS1v1_5).rawRepresentation)
        }
        if header.contains(#""alg":"PS256""#) {
            return Array(try! rsa.signature(for: SHA256.hash(data: input), padding: .PSS).rawRepresentation)
        }
        if header.contains(#""alg":"ES256""#) {
            let signature = try! p256.signature(for: input)
            return Array(der ? signature.derRepresentation : signature.rawRepresentation)
        }
        if header.contains(#""alg":"ES384""#) { return Array(try! p384.signature(for: input).rawRepresentation) }
        if header.contains(#""alg":"EdDSA""#) { return Array(try! ed25519.signature(for: input)) }
        return []
    }
}
