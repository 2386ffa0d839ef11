import Crypto
import GatewayModels
import _CryptoExtras
import GatewaySupport

/// One public key of an identity provider's key set (RFC 7517 §4, RFC 7518 §6, RFC 8037),
/// checked when the set is read: RSA of at least 2048 bits, EC on P-256 or P-384, OKP on
/// Ed25519; `use` `sig` or absent; `key_ops`, when present, naming `verify`; no private
/// members. Immutable, thread-safe.
public struct JSONWebKey: Sendable {
    /// The verifying key. `@unchecked`: swift-crypto 3 does not mark its P-256, P-384 and
    /// Ed25519 public keys `Sendable` on Linux; each is immutable after it is made and only
    /// read by verification (BoringSSL's verify takes its key `const`), so sharing one
    /// between threads is safe.
    enum Material: @unchecked Sendable {
        case rsa(_RSA.Signing.PublicKey)
        case p256(P256.Signing.PublicKey)
        case p384(P384.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
    }

    /// `kid`, when the set gives one.
    public let id: String?
    /// `alg`, when the set pins the key to one algorithm.
    public let algorithm: String?
    let material: Material

    /// The smallest RSA modulus accepted (RFC 7518 §3.3).
    static let minimumRSABits = 2048
    /// The largest: verification costs grow with it, and no provider uses more.
    static let maximumRSABits = 8192

    /// Why a key of a set was skipped (the others are used).
    struct Skipped: Error {
        let reason: String
    }

    /// Reads one member of a set's `keys`.
    /// - Throws: ``Skipped`` with the reason.
    init(_ value: JSONValue) throws(Skipped) {
        guard case .object(let members) = value else { throw Skipped(reason: "not an object") }
        func text(_ name: String) throws(Skipped) -> String? {
            switch members[name] {
            case nil: return nil
            case .string(let value): return value
            default: throw Skipped(reason: "\(name) is not a string")
            }
        }
        func bytes(_ name: String) throws(Skipped) -> [UInt8] {
            guard let text = try text(name), let bytes = Base64URL.decode(text.utf8) else { throw Skipped(reason: "\(name) is missing or not base64url") }
            return bytes
        }
        id = try text("kid")
        algorithm = try text("alg")
        if let use = try text("use"), use != "sig" { throw Skipped(reason: "use is \"\(use)\", not \"sig\"") }
        if let operations = members["key_ops"] {
            guard case .array(let names) = operations, names.contains(.string("verify")) else { throw Skipped(reason: "key_ops does not name verify") }
        }
        for member in ["d", "p", "q", "dp", "dq", "qi", "k"] where members[member] != nil {
            throw Skipped(reason: "it holds private key material (\(member))")
        }
        switch try text("kty") {
        case "RSA":
            let modulus = try bytes("n")
            let exponent = try bytes("e")
            let bits = Self.bitCount(modulus)
            guard bits >= Self.minimumRSABits else { throw Skipped(reason: "an RSA key of \(bits) bits (at least \(Self.minimumRSABits))") }
            guard bits <= Self.maximumRSABits else { throw Skipped(reason: "an RSA key of \(bits) bits (at most \(Self.maximumRSABits))") }
            guard exponent.count <= 8 else { throw Skipped(reason: "an RSA exponent of \(exponent.count) bytes") }
            do {
                material = .rsa(try _RSA.Signing.PublicKey(n: modulus, e: exponent))
            } catch {
                throw Skipped(reason: "not a valid RSA key")
            }
        case "EC":
            let (x, y) = (try bytes("x"), try bytes("y"))
            do {
                switch try text("crv") {
                case "P-256" where x.count == 32 && y.count == 32:
                    material = .p256(try P256.Signing.PublicKey(x963Representation: [0x04] + x + y))
                case "P-384" where x.count == 48 && y.count == 48:
                    material = .p384(try P384.Signing.PublicKey(x963Representation: [0x04] + x + y))
                case "P-256", "P-384": throw Skipped(reason: "coordinates of the wrong length")
                default: throw Skipped(reason: "an EC curve other than P-256 and P-384")
                }
            } catch let skipped as Skipped {
                throw skipped
            } catch {
                throw Skipped(reason: "not a point on its curve")
            }
        case "OKP":
            guard try text("crv") == "Ed25519" else { throw Skipped(reason: "an OKP curve other than Ed25519") }
            let x = try bytes("x")
            guard x.count == 32, let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x) else {
                throw Skipped(reason: "not an Ed25519 public key")
            }
            material = .ed25519(key)
        case let type:
            throw Skipped(reason: "key type \(type.map { "\"\($0)\"" } ?? "missing") (RSA, EC and OKP are read)")
        }
    }

    /// Whether this key may verify a token signed with `algorithm`: its type (and curve)
    /// fits, and its own `alg`, when the set gives one, is the same.
    func verifies(_ algorithm: SigningAlgorithm) -> Bool {
        if let pinned = self.algorithm, pinned != algorithm.rawValue { return false }
        switch (material, algorithm) {
        case (.rsa, .rs256), (.rsa, .rs384), (.rsa, .rs512), (.rsa, .ps256), (.rsa, .ps384), (.rsa, .ps512): return true
        case (.p256, .es256), (.p384, .es384), (.ed25519, .edDSA): return true
        default: return false
        }
    }

    /// Whether `signature` is `algorithm`'s over `input`. ECDSA signatures are raw `r‖s`
    /// (RFC 7518 §3.4): one of another length (DER) is refused. RSA ones are as long as
    /// the modulus. Costs one public-key operation (tens of microseconds).
    func isValid(_ signature: [UInt8], of algorithm: SigningAlgorithm, over input: [UInt8]) -> Bool {
        switch (material, algorithm) {
        case (.rsa(let key), _):
            guard signature.count == key.keySizeInBits / 8 else { return false }
            let signature = _RSA.Signing.RSASignature(rawRepresentation: signature)
            let padding: _RSA.Signing.Padding = [.ps256, .ps384, .ps512].contains(algorithm) ? .PSS : .insecurePKCS1v1_5
            switch algorithm {
            case .rs256, .ps256: return key.isValidSignature(signature, for: SHA256.hash(data: input), padding: padding)
            case .rs384, .ps384: return key.isValidSignature(signature, for: SHA384.hash(data: input), padding: padding)
            case .rs512, .ps512: return key.isValidSignature(signature, for: SHA512.hash(data: input), padding: padding)
            default: return false
            }
        case (.p256(let key), .es256):
            guard signature.count == 64, let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: SHA256.hash(data: input))
        case (.p384(let key), .es384):
            guard signature.count == 96, let signature = try? P384.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: SHA384.hash(data: input))
        case (.ed25519(let key), .edDSA):
            return signature.count == 64 && key.isValidSignature(signature, for: input)
        default:
            return false
        }
    }

    /// The number of significant bits of a big-endian unsigned integer.
    static func bitCount(_ bytes: [UInt8]) -> Int {
        guard let first = bytes.firstIndex(where: { $0 != 0 }) else { return 0 }
        return (bytes.count - first - 1) * 8 + (8 - bytes[first].leadingZeroBitCount)
    }
}
