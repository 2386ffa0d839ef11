// `swift run -c release TokenBenchmark`: what verifying one bearer token costs, per algorithm,
// on one thread: the whole check (reading the token, choosing the key, the signature, the
// claims) and the reading alone. Keys are made here (RSA 2048 and 3072, P-256, P-384,
// Ed25519); each figure is the median of 25 batches, in microseconds per token.
import Authentication
import Crypto
import Foundation
import GatewayModels
import _CryptoExtras
import GatewaySupport

let issuer = "https://id.example.com/"
let audience = "open-market-api"
let now = Int64(Date().timeIntervalSince1970)
let claims = #"{"iss":"\#(issuer)","sub":"seller-7","aud":"\#(audience)","exp":\#(now + 3600),"iat":\#(now),"scope":"products:write openid","vendor":"vendor-1"}"#

let rsa2048 = try _RSA.Signing.PrivateKey(keySize: .bits2048)
let rsa3072 = try _RSA.Signing.PrivateKey(keySize: .bits3072)
let p256 = P256.Signing.PrivateKey()
let p384 = P384.Signing.PrivateKey()
let ed25519 = Curve25519.Signing.PrivateKey()

func rsaJWK(_ key: _RSA.Signing.PrivateKey, kid: String) throws -> String {
    let primitives = try key.publicKey.getKeyPrimitives()
    return #"{"kty":"RSA","kid":"\#(kid)","n":"\#(Base64URL.encode(primitives.modulus))","e":"\#(Base64URL.encode(primitives.publicExponent))"}"#
}

func ecJWK(_ point: Data, curve: String, kid: String) -> String {
    let coordinates = Array(point.dropFirst())
    let half = coordinates.count / 2
    return #"{"kty":"EC","kid":"\#(kid)","crv":"\#(curve)","x":"\#(Base64URL.encode(coordinates[..<half]))","y":"\#(Base64URL.encode(coordinates[half...]))"}"#
}

let members = [
    try rsaJWK(rsa2048, kid: "rsa2048"), try rsaJWK(rsa3072, kid: "rsa3072"),
    ecJWK(p256.publicKey.x963Representation, curve: "P-256", kid: "p256"),
    ecJWK(p384.publicKey.x963Representation, curve: "P-384", kid: "p384"),
    #"{"kty":"OKP","kid":"ed","crv":"Ed25519","x":"\#(Base64URL.encode(ed25519.publicKey.rawRepresentation))"}"#,
]
let keys = try JSONWebKeySet.read(Array(#"{"keys":[\#(members.joined(separator: ","))]}"#.utf8))
let policy = TokenPolicy(issuer: issuer, audiences: [audience], algorithms: [.rs256, .ps256, .es256, .es384, .edDSA])

func token(alg: String, kid: String, sign: ([UInt8]) throws -> [UInt8]) throws -> [UInt8] {
    let input = Base64URL.encode(Array(#"{"alg":"\#(alg)","typ":"at+jwt","kid":"\#(kid)"}"#.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
    return Array((input + "." + Base64URL.encode(try sign(Array(input.utf8)))).utf8)
}

let tokens: [(String, [UInt8])] = [
    ("RS256, RSA 2048", try token(alg: "RS256", kid: "rsa2048") { Array(try rsa2048.signature(for: SHA256.hash(data: $0), padding: .insecurePKCS1v1_5).rawRepresentation) }),
    ("RS256, RSA 3072", try token(alg: "RS256", kid: "rsa3072") { Array(try rsa3072.signature(for: SHA256.hash(data: $0), padding: .insecurePKCS1v1_5).rawRepresentation) }),
    ("PS256, RSA 2048", try token(alg: "PS256", kid: "rsa2048") { Array(try rsa2048.signature(for: SHA256.hash(data: $0), padding: .PSS).rawRepresentation) }),
    ("ES256, P-256", try token(alg: "ES256", kid: "p256") { Array(try p256.signature(for: $0).rawRepresentation) }),
    ("ES384, P-384", try token(alg: "ES384", kid: "p384") { Array(try p384.signature(for: $0).rawRepresentation) }),
    ("EdDSA, Ed25519", try token(alg: "EdDSA", kid: "ed") { Array(try ed25519.signature(for: $0)) }),
]

/// Median over 25 batches of `body` run `count` times, in microseconds per run.
func measure(count: Int, _ body: () throws -> Void) rethrows -> Double {
    var batches: [Double] = []
    for _ in 0..<25 {
        let start = ContinuousClock.now
        for _ in 0..<count { try body() }
        let elapsed = ContinuousClock.now - start
        batches.append(Double(elapsed.components.attoseconds) / 1e12 / Double(count) + Double(elapsed.components.seconds) * 1e6 / Double(count))
    }
    return batches.sorted()[batches.count / 2]
}

print("bearer token verification, one thread, median of 25 batches (µs per token)")
print("token".padding(toLength: 18, withPad: " ", startingAt: 0) + "  bytes   verify    read")
for (name, bytes) in tokens {
    let verify = try measure(count: 200) {
        let verified = try TokenVerifier.verify(bytes, keys: keys, policy: policy, now: now)
        precondition(verified.subject == "seller-7")
    }
    let read = try measure(count: 2000) { _ = try CompactToken.read(bytes) }
    print(name.padding(toLength: 18, withPad: " ", startingAt: 0) + String(format: "  %5d  %7.1f  %6.1f", bytes.count, verify, read))
}
