import Crypto
import Foundation
import GatewayModels
import Testing

@testable import Authentication
import GatewaySupport

@Suite struct TokenVerifierTests {
    private func verify(_ token: String, keys: JSONWebKeySet = TestKeys.allKeys, now: Int64 = TestKeys.now) throws(TokenRejection) -> VerifiedToken {
        try TokenVerifier.verify(Array(token.utf8), keys: keys, policy: TestKeys.policy, now: now)
    }

    @Test(arguments: [("RS256", "rsa-1"), ("PS256", "rsa-1"), ("ES256", "ec-1"), ("ES384", "ec384-1"), ("EdDSA", "ed-1")])
    func acceptsEachAlgorithm(alg: String, kid: String) throws {
        let verified = try verify(TestKeys.token(alg: alg, kid: kid))
        #expect(verified.subject == "seller-7")
        #expect(verified.issuer == TestKeys.issuer)
        #expect(verified.scopes == ["products:write", "openid"])
        #expect(verified.expiresAt == TestKeys.now + 300)
        #expect(verified.keyID == kid)
    }

    @Test func aSetOfOneKeyNeedsNoKid() throws {
        let keys = try TestKeys.keySet([TestKeys.ed25519JWK])
        #expect(try verify(TestKeys.token(alg: "EdDSA", kid: nil), keys: keys).subject == "seller-7")
        #expect(throws: TokenRejection.keyNotNamed) { try verify(TestKeys.token(alg: "EdDSA", kid: nil)) }
    }

    /// `exp`, `nbf` and `iat` with the 60 s skew, at the exact second each changes.
    @Test func timesWithTheSkew() throws {
        let token = TestKeys.token(alg: "ES256", kid: "ec-1")
        #expect(try verify(token, now: TestKeys.now + 359).subject == "seller-7")
        #expect(throws: TokenRejection.expired) { try verify(token, now: TestKeys.now + 360) }
        let early = TestKeys.token(alg: "ES256", kid: "ec-1", claims: TestKeys.claims().replacingOccurrences(of: #","iat":"#, with: #","nbf":\#(TestKeys.now + 100),"iat":"#))
        #expect(throws: TokenRejection.notYetValid) { try verify(early, now: TestKeys.now + 39) }
        #expect(try verify(early, now: TestKeys.now + 40).subject == "seller-7")
        let future = TestKeys.token(alg: "ES256", kid: "ec-1", claims: TestKeys.claims().replacingOccurrences(of: #""iat":\#(TestKeys.now - 10)"#, with: #""iat":\#(TestKeys.now + 61)"#))
        #expect(throws: TokenRejection.issuedInFuture) { try verify(future) }
        // Fractions of a second are allowed in dates and dropped.
        let fractional = TestKeys.token(alg: "ES256", kid: "ec-1", claims: TestKeys.claims().replacingOccurrences(of: #""exp":\#(TestKeys.now + 300)"#, with: #""exp":\#(TestKeys.now + 300).9"#))
        #expect(try verify(fractional).expiresAt == TestKeys.now + 300)
    }

    @Test func issuerAndAudience() throws {
        let claims = TestKeys.claims()
        #expect(throws: TokenRejection.wrongIssuer) {
            try verify(TestKeys.token(alg: "EdDSA", kid: "ed-1", claims: claims.replacingOccurrences(of: TestKeys.issuer, with: "https://id.example.com")))
        }
        #expect(throws: TokenRejection.wrongAudience) {
            try verify(TestKeys.token(alg: "EdDSA", kid: "ed-1", claims: claims.replacingOccurrences(of: #""aud":"open-market-api""#, with: #""aud":"account""#)))
        }
        #expect(throws: TokenRejection.wrongAudience) {
            try verify(TestKeys.token(alg: "EdDSA", kid: "ed-1", claims: claims.replacingOccurrences(of: #""aud":"open-market-api","#, with: "")))
        }
        let several = claims.replacingOccurrences(of: #""aud":"open-market-api""#, with: #""aud":["account","open-market-api"]"#)
        #expect(try verify(TestKeys.token(alg: "EdDSA", kid: "ed-1", claims: several)).subject == "seller-7")
    }

    /// `none` and HMAC are refused whatever the key set: "HS256 keyed with the RSA public
    /// key's bytes" never reaches a key.
    @Test func refusesNoneAndHMAC() throws {
        let claims = Base64URL.encode(Array(TestKeys.claims().utf8))
        let none = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + claims + "."
        #expect(throws: TokenRejection.malformed("its signature is missing or not base64url")) { try verify(none) }
        let noneSigned = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + claims + ".AAAA"
        #expect(throws: TokenRejection.algorithmNotAllowed("none")) { try verify(noneSigned) }
        let header = Base64URL.encode(Array(#"{"alg":"HS256","kid":"rsa-1"}"#.utf8))
        let input = header + "." + claims
        let secret = SymmetricKey(data: Array(TestKeys.rsa.publicKey.pemRepresentation.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: secret)
        #expect(throws: TokenRejection.algorithmNotAllowed("HS256")) { try verify(input + "." + Base64URL.encode(Array(mac))) }
        // An algorithm the policy leaves out.
        #expect(throws: TokenRejection.algorithmNotAllowed("RS384")) { try verify(TestKeys.token(alg: "RS384", kid: "rsa-1")) }
    }

    @Test func signatures() throws {
        // ES256 in DER (what OpenSSL's ECDSA_sign writes): refused, not converted.
        let der = TestKeys.token(header: #"{"alg":"ES256","kid":"ec-1"}"#, der: true)
        #expect(throws: TokenRejection.badSignature) { try verify(der) }
        // Claims changed after signing.
        let token = TestKeys.token(alg: "RS256", kid: "rsa-1")
        let parts = token.split(separator: ".")
        let forged = parts[0] + "." + Base64URL.encode(Array(TestKeys.claims().replacingOccurrences(of: "seller-7", with: "seller-8").utf8)) + "." + parts[2]
        #expect(throws: TokenRejection.badSignature) { try verify(String(forged)) }
        // Signed by one key, naming another of the same type.
        let otherKid = TestKeys.token(header: #"{"alg":"RS256","kid":"rsa-2"}"#)
        let rotated = try TestKeys.keySet([TestKeys.rsaJWK.replacingOccurrences(of: "rsa-1", with: "rsa-2"), TestKeys.p256JWK])
        #expect(try verify(otherKid, keys: rotated).keyID == "rsa-2")
        #expect(throws: TokenRejection.unknownKey) { try verify(otherKid) }
        // A kid whose key is of another type, or pinned to another algorithm.
        #expect(throws: TokenRejection.keyMismatch) { try verify(TestKeys.token(header: #"{"alg":"ES256","kid":"rsa-1"}"#)) }
        #expect(throws: TokenRejection.keyMismatch) { try verify(TestKeys.token(header: #"{"alg":"ES256","kid":"ec384-1"}"#)) }
    }

    @Test func strictReading() throws {
        #expect(throws: TokenRejection.malformed("its claims are not valid JSON (duplicate key)")) {
            try verify(TestKeys.token(alg: "EdDSA", kid: "ed-1", claims: TestKeys.claims(#""sub":"admin""#)))
        }
        #expect(throws: TokenRejection.criticalHeader) { try verify(TestKeys.token(header: #"{"alg":"EdDSA","kid":"ed-1","crit":["exp"]}"#)) }
        #expect(throws: TokenRejection.wrongType) { try verify(TestKeys.token(header: #"{"alg":"EdDSA","kid":"ed-1","typ":"logout+jwt"}"#)) }
        #expect(try verify(TestKeys.token(header: #"{"alg":"EdDSA","kid":"ed-1","typ":"application/AT+JWT"}"#)).subject == "seller-7")
        #expect(throws: TokenRejection.tooLong) { try verify(String(repeating: "a", count: 8193)) }
        #expect(throws: TokenRejection.malformed("a JWT has three parts separated by dots")) { try verify("abc.def") }
        #expect(throws: TokenRejection.malformed("an encrypted token (JWE) is not accepted")) { try verify("a.b.c.d.e") }
        #expect(throws: TokenRejection.malformed("its header is not base64url")) { try verify("eyJ=.e30.AAAA") }
        #expect(throws: TokenRejection.malformed("its claims are not a JSON object")) {
            try verify(Base64URL.encode(Array(#"{"alg":"EdDSA"}"#.utf8)) + "." + Base64URL.encode(Array("[1]".utf8)) + ".AAAA")
        }
        #expect(throws: TokenRejection.claim("it has no expiry (exp)")) {
            try verify(TestKeys.token(alg: "EdDSA", kid: "ed-1", claims: TestKeys.claims().replacingOccurrences(of: #""exp":\#(TestKeys.now + 300),"#, with: "")))
        }
        #expect(throws: TokenRejection.claim("exp is not a date in seconds")) {
            try verify(TestKeys.token(alg: "EdDSA", kid: "ed-1", claims: TestKeys.claims().replacingOccurrences(of: #""exp":\#(TestKeys.now + 300)"#, with: #""exp":\#(TestKeys.now * 1000)"#)))
        }
        #expect(throws: TokenRejection.claim("the subject (sub) is not 1 to 255 visible ASCII characters")) {
            try verify(TestKeys.token(alg: "EdDSA", kid: "ed-1", claims: TestKeys.claims().replacingOccurrences(of: "seller-7", with: "seller 7\\n")))
        }
        #expect(throws: TokenRejection.claim("it has no sub")) {
            try verify(TestKeys.token(alg: "EdDSA", kid: "ed-1", claims: TestKeys.claims().replacingOccurrences(of: #""sub":"seller-7","#, with: "")))
        }
    }

    @Test func scopesFromScp() throws {
        let claims = TestKeys.claims().replacingOccurrences(of: #""scope":"products:write openid""#, with: #""scp":["products:write"]"#)
        #expect(try verify(TestKeys.token(alg: "EdDSA", kid: "ed-1", claims: claims)).scopes == ["products:write"])
        let text = TestKeys.claims().replacingOccurrences(of: #""scope":"products:write openid""#, with: #""scp":"a b""#)
        #expect(try verify(TestKeys.token(alg: "EdDSA", kid: "ed-1", claims: text)).scopes == ["a", "b"])
    }

    /// Each rejection's detail names the check and never the token.
    @Test func detailsNameTheCheck() {
        #expect(TokenRejection.expired.detail == "The bearer token has expired (exp).")
        #expect(TokenRejection.algorithmNotAllowed("HS256").detail == #"The bearer token's algorithm "HS256" is not accepted."#)
        #expect(TokenRejection.algorithmNotAllowed("x\"\u{7}yyyyyyyyyyyyyyyyyyyy").detail == #"The bearer token's algorithm "x??yyyyyyyyyyyyy…" is not accepted."#)
        #expect(TokenRejection.unknownKey.reason == "unknown_key")
    }
}
