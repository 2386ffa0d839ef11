import Crypto
import Foundation

/// Signed image tokens: `base64url(url) "." base64url(HMAC-SHA256(key, url))` (the layout is
/// ``ImageToken``'s). The token carries the origin URL, so any replica with the same key can
/// serve it, and it changes when the URL does. Thread-safe.
public struct ImageSigner: Sendable {
    /// Raw key bytes: `SymmetricKey` is not `Sendable`, so one is made per use (32 bytes).
    private let keyBytes: [UInt8]
    private var key: SymmetricKey { SymmetricKey(data: keyBytes) }

    public init(key: [UInt8]) {
        keyBytes = key
    }

    /// The token for `url`.
    public func token(for url: String) -> String {
        let bytes = Array(url.utf8)
        let mac = HMAC<SHA256>.authenticationCode(for: bytes, using: key)
        return ImageToken.encode(url: bytes, mac: Array(mac))
    }

    /// The URL `token` carries when its signature verifies (compared in constant time);
    /// nil for anything forged, altered or malformed. Byte-level parsing: it runs on every
    /// image request, hits included.
    public func url(from token: String) -> String? {
        var token = token
        return token.withUTF8 { bytes -> String? in
            guard let (url, mac) = ImageToken.parts(bytes), mac.count == SHA256.byteCount,
                HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: url, using: key)
            else { return nil }
            return String(validating: url, as: UTF8.self)
        }
    }
}

extension ImageSigner {
    /// The signer for `configuration`: its key, else the key in `image-signing.key` under the
    /// cache directory, created (32 random bytes, hex, mode 0600, written atomically) when
    /// absent, so tokens survive restarts. The key is never logged.
    public static func make(for configuration: ImageConfiguration) throws -> ImageSigner {
        if let text = configuration.signingKey {
            guard text.utf8.count >= 16 else { throw ImageSigningKeyError(reason: "--image-signing-key must be at least 16 characters") }
            return ImageSigner(key: Array(text.utf8))
        }
        let manager = FileManager.default
        let directory = URL(fileURLWithPath: configuration.cacheDirectory, isDirectory: true)
        let file = directory.appendingPathComponent("image-signing.key")
        if let data = manager.contents(atPath: file.path) {
            guard let key = Self.hexBytes(String(decoding: data, as: UTF8.self)), key.count >= 16 else {
                throw ImageSigningKeyError(reason: "\(file.path) does not hold a hex key of at least 16 bytes")
            }
            return ImageSigner(key: key)
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
        return ImageSigner(key: key)
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
