import Crypto
import Foundation
import _CryptoExtras

/// Image tokens: the origin URL sealed with AES-256-GCM-SIV (a nonce-misuse-resistant AEAD), so
/// that clients cannot read the origin's address and cannot forge a token. The layouts are
/// ``ImageToken``'s.
///
/// Both keys come from `--image-signing-key` by HKDF-SHA256, so every replica with the same key
/// makes and reads the same tokens, across restarts. The nonce is synthetic: the first 12 bytes
/// of an HMAC of the URL under its own derived key, so one URL always gives one token (the
/// caches and the clients' HTTP caches key on it) and two URLs never share a nonce. (AES-GCM
/// or ChaChaPoly with a fixed nonce would leak the XOR of two URLs and let a forger make tokens;
/// GCM-SIV with a repeated nonce only shows that two plaintexts are equal, and here equal URLs
/// are meant to give equal tokens.)
///
/// Tokens of the earlier, signed-only layout (`base64url(url).base64url(HMAC-SHA256(key, url))`)
/// are read only while `legacyTokens` is true (off by default), so a deployment whose old links
/// are still in the wild can keep them working; tokens made now are always sealed. Thread-safe.
public struct ImageSigner: Sendable {
    /// Raw key bytes: `SymmetricKey` is not `Sendable`, so one is made per use. The signing
    /// key itself (legacy tokens' HMAC), and the two derived keys.
    private let macKeyBytes: [UInt8]
    private let sealKeyBytes: [UInt8]
    private let nonceKeyBytes: [UInt8]
    /// Whether legacy (readable) tokens are still accepted.
    public let legacyTokens: Bool

    public init(key: [UInt8], legacyTokens: Bool = false) {
        macKeyBytes = key
        self.legacyTokens = legacyTokens
        sealKeyBytes = Self.derive(key, "open-market-gateway image token AES-256-GCM-SIV key v1")
        nonceKeyBytes = Self.derive(key, "open-market-gateway image token nonce key v1")
    }

    private static func derive(_ key: [UInt8], _ info: String) -> [UInt8] {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: key), salt: Array("open-market-gateway".utf8), info: Array(info.utf8), outputByteCount: 32
        ).withUnsafeBytes { Array($0) }
    }

    /// The sealed token for `url`: the same for the same URL and key, everywhere.
    public func token(for url: String) -> String {
        let bytes = Array(url.utf8)
        let mac = HMAC<SHA256>.authenticationCode(for: bytes, using: SymmetricKey(data: nonceKeyBytes))
        // A 12-byte nonce and a 32-byte key are what AES-GCM-SIV takes: neither call can fail.
        guard let nonce = try? AES.GCM._SIV.Nonce(data: Array(mac).prefix(12)),
            let box = try? AES.GCM._SIV.seal(bytes, using: SymmetricKey(data: sealKeyBytes), nonce: nonce, authenticating: [ImageToken.sealedVersion])
        else { preconditionFailure("AES-GCM-SIV refused a 32-byte key and a 12-byte nonce") }
        return ImageToken.encodeSealed(Array(box.combined))
    }

    /// The URL `token` carries when it opens (sealed) or verifies (legacy, while accepted; the
    /// MAC compared in constant time); nil for anything forged, altered or malformed.
    /// Byte-level parsing: it runs on every image request whose token this process has not
    /// verified yet.
    public func url(from token: String) -> String? {
        var token = token
        return token.withUTF8 { bytes -> String? in
            if let box = ImageToken.sealed(bytes) {
                guard let sealed = try? AES.GCM._SIV.SealedBox(combined: box),
                    let url = try? AES.GCM._SIV.open(sealed, using: SymmetricKey(data: sealKeyBytes), authenticating: [ImageToken.sealedVersion])
                else { return nil }
                return String(validating: Array(url), as: UTF8.self)
            }
            guard legacyTokens, let (url, mac) = ImageToken.parts(bytes), mac.count == SHA256.byteCount,
                HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: url, using: SymmetricKey(data: macKeyBytes))
            else { return nil }
            return String(validating: url, as: UTF8.self)
        }
    }

    /// A legacy token (signed, readable), as the gateway made before tokens were sealed: for
    /// tests of `--legacy-image-tokens`.
    func legacyToken(for url: String) -> String {
        let bytes = Array(url.utf8)
        let mac = HMAC<SHA256>.authenticationCode(for: bytes, using: SymmetricKey(data: macKeyBytes))
        return ImageToken.encode(url: bytes, mac: Array(mac))
    }
}

extension ImageSigner {
    /// The signer for `configuration`: its key, else the key in `image-signing.key` under the
    /// cache directory, created (32 random bytes, hex, mode 0600, written atomically) when
    /// absent, so tokens survive restarts. The key is never logged.
    public static func make(for configuration: ImageConfiguration) throws -> ImageSigner {
        if let text = configuration.signingKey {
            guard text.utf8.count >= 16 else { throw ImageSigningKeyError(reason: "--image-signing-key must be at least 16 characters") }
            return ImageSigner(key: Array(text.utf8), legacyTokens: configuration.legacyTokens)
        }
        let manager = FileManager.default
        let directory = URL(fileURLWithPath: configuration.cacheDirectory, isDirectory: true)
        let file = directory.appendingPathComponent("image-signing.key")
        if let data = manager.contents(atPath: file.path) {
            guard let key = Self.hexBytes(String(decoding: data, as: UTF8.self)), key.count >= 16 else {
                throw ImageSigningKeyError(reason: "\(file.path) does not hold a hex key of at least 16 bytes")
            }
            return ImageSigner(key: key, legacyTokens: configuration.legacyTokens)
        }
        let key = SymmetricKey(size: .bits256).withUnsafeBytes { [UInt8]($0) }
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true)
            let temporary = directory.appendingPathComponent("image-signing.key.\(UInt64.random(in: 0...UInt64.max)).tmp")
            guard manager.createFile(atPath: temporary.path, contents: Data(key.map { String(format: "%02x", $0) }.joined().utf8),
                attributes: [.posixPermissions: 0o600])
            else { throw ImageSigningKeyError(reason: "cannot write \(temporary.path)") }
            // Another process may have created it meanwhile: keep whichever is there first.
            if manager.fileExists(atPath: file.path) {
                try? manager.removeItem(at: temporary)
                return try make(for: configuration)
            }
            try manager.moveItem(at: temporary, to: file)
        } catch let error as ImageSigningKeyError {
            throw error
        } catch {
            throw ImageSigningKeyError(reason: "cannot create \(file.path): \(error.localizedDescription)")
        }
        return ImageSigner(key: key, legacyTokens: configuration.legacyTokens)
    }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}

/// The signing key cannot be used or kept.
public struct ImageSigningKeyError: Error, Sendable, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }
}
