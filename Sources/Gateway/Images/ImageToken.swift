import Foundation
// scripts/fuzz compiles this file into one module with GatewayModels' sources (on GatewaySupport,
// a module of its own there too).
import GatewaySupport
#if canImport(GatewayModels)
import GatewayModels
#endif

/// The layouts of image tokens, without the cryptography (``ImageSigner`` seals, opens, signs
/// and checks). Kept apart so that the parser of these untrusted bytes can be fuzzed on its
/// own (scripts/fuzz image-token). Pure and thread-safe. Both are unpadded base64url (RFC 4648
/// §5):
/// - sealed (what the gateway makes): `base64url(version nonce ciphertext tag)`, one piece
///   with no `.`: the origin's address cannot be read from it;
/// - legacy (readable until `--legacy-image-tokens false`): `base64url(url) "." base64url(mac)`,
///   which shows the URL.
enum ImageToken {
    /// Longest token accepted (the URL's base64 plus the signature's).
    static let maxLength = 4096
    /// The first byte of a sealed token's bytes (and its associated data).
    static let sealedVersion: UInt8 = 1
    /// A sealed token's bytes besides the ciphertext: version, 12-byte nonce, 16-byte tag.
    static let sealedOverhead = 1 + 12 + 16

    /// The sealed token of `box` (nonce, ciphertext and tag).
    static func encodeSealed(_ box: [UInt8]) -> String {
        base64URL([sealedVersion] + box)
    }

    /// The nonce, ciphertext and tag a sealed token holds: nil when it is longer than
    /// ``maxLength``, holds a `.` (a legacy token), is not canonical unpadded base64url, is of
    /// another version, or is too short to hold a one-byte URL.
    static func sealed(_ token: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard token.count <= maxLength, !token.contains(UInt8(ascii: ".")), let bytes = decodeBase64URL(token[...]),
            bytes.count > sealedOverhead, bytes[0] == sealedVersion
        else { return nil }
        return Array(bytes.dropFirst())
    }

    /// The token for `url` and `mac`.
    static func encode(url: [UInt8], mac: [UInt8]) -> String {
        base64URL(url) + "." + base64URL(mac)
    }

    /// The URL bytes and the MAC bytes a token holds: nil when it is longer than
    /// ``maxLength``, has no `.`, or either part is not canonical unpadded base64url (each
    /// byte string has exactly one token, so `encode(parts(t))` is `t`). The MAC's length
    /// is not checked here.
    static func parts(_ token: UnsafeBufferPointer<UInt8>) -> (url: [UInt8], mac: [UInt8])? {
        guard token.count <= maxLength, let dot = token.firstIndex(of: UInt8(ascii: ".")),
            let url = decodeBase64URL(token[..<dot]), let mac = decodeBase64URL(token[(dot + 1)...])
        else { return nil }
        return (url, mac)
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Base64URL.encode(bytes)
    }

    static func decodeBase64URL(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> [UInt8]? {
        Base64URL.decode(text)
    }
}
