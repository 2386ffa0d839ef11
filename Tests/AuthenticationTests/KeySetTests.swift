import Foundation
import GatewayModels
import Testing

@testable import Authentication
import GatewaySupport

@Suite struct KeySetTests {
    /// A malformed or unsupported key is skipped with its reason; the others are used.
    @Test func skipsWhatItCannotUse() throws {
        let set = try TestKeys.keySet([
            #"{"kty":"RSA","kid":"short","n":"\#(Base64URL.encode([UInt8](repeating: 0xC1, count: 128)))","e":"AQAB"}"#,
            #"{"kty":"EC","kid":"enc","use":"enc","crv":"P-256","x":"AA","y":"AA"}"#,
            #"{"kty":"oct","kid":"mac","k":"c2VjcmV0"}"#,
            #"{"kty":"EC","kid":"k","crv":"secp256k1","x":"AA","y":"AA"}"#,
            #"{"kty":"OKP","kid":"x","crv":"X25519","x":"AA"}"#,
            #"{"kty":"EC","kid":"off","crv":"P-256","x":"\#(Base64URL.encode([UInt8](repeating: 1, count: 32)))","y":"\#(Base64URL.encode([UInt8](repeating: 2, count: 32)))"}"#,
            #"{"kty":"OKP","kid":"private","crv":"Ed25519","x":"\#(Base64URL.encode(TestKeys.ed25519.publicKey.rawRepresentation))","d":"AA"}"#,
            #"{"kty":"OKP","kid":"ops","key_ops":["encrypt"],"crv":"Ed25519","x":"AA"}"#,
            #"[1]"#,
            TestKeys.ed25519JWK,
        ])
        #expect(set.keys.map(\.id) == ["ed-1"])
        #expect(set.skipped == [
            "key 1 (kid short): an RSA key of 1024 bits (at least 2048)",
            "key 2 (kid enc): use is \"enc\", not \"sig\"",
            "key 3 (kid mac): it holds private key material (k)",
            "key 4 (kid k): an EC curve other than P-256 and P-384",
            "key 5 (kid x): an OKP curve other than Ed25519",
            "key 6 (kid off): not a point on its curve",
            "key 7 (kid private): it holds private key material (d)",
            "key 8 (kid ops): key_ops does not name verify",
            "key 9: not an object",
        ])
    }

    @Test func refusesWholeSets() {
        #expect(throws: JSONWebKeySet.Failure(description: "the key set is not an object with a \"keys\" array")) {
            try JSONWebKeySet.read(Array(#"{"key":[]}"#.utf8))
        }
        #expect(throws: JSONWebKeySet.Failure(description: "the key set has no usable key: key 1: key type missing (RSA, EC and OKP are read)")) {
            try JSONWebKeySet.read(Array(#"{"keys":[{}]}"#.utf8))
        }
        #expect(throws: JSONWebKeySet.Failure(description: "the key set is not valid JSON (invalid JSON at byte 11: duplicate key)")) {
            try JSONWebKeySet.read(Array(#"{"keys":[],"keys":[]}"#.utf8))
        }
        let many = "{\"keys\":[" + Array(repeating: TestKeys.ed25519JWK, count: 33).joined(separator: ",") + "]}"
        #expect(throws: JSONWebKeySet.Failure(description: "the key set lists 33 keys (at most 32)")) { try JSONWebKeySet.read(Array(many.utf8)) }
    }

    @Test func algorithmLists() throws {
        #expect(try SigningAlgorithm.list(["RS256", " ES256", "EdDSA", "RS256"]) == [.rs256, .es256, .edDSA])
        #expect(throws: SigningAlgorithm.ListError(description: "\"none\" is not a signature: tokens must be signed")) { try SigningAlgorithm.list(["RS256", "none"]) }
        #expect(throws: SigningAlgorithm.ListError.self) { try SigningAlgorithm.list(["HS256"]) }
        #expect(throws: SigningAlgorithm.ListError.self) { try SigningAlgorithm.list(["rs256"]) }
        #expect(throws: SigningAlgorithm.ListError(description: "no algorithm named")) { try SigningAlgorithm.list([""]) }
    }

    @Test func bitCounts() {
        #expect(JSONWebKey.bitCount([0, 0x01, 0]) == 9)
        #expect(JSONWebKey.bitCount([0x80] + [UInt8](repeating: 0, count: 255)) == 2048)
        #expect(JSONWebKey.bitCount([0, 0]) == 0)
    }
}
