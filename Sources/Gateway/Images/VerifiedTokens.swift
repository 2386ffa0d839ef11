import GatewayModels
import GatewaySupport

/// Image tokens whose signature was verified, with the URL each names, so a memory-tier hit
/// can be answered from the token's bytes without verifying the HMAC again and without
/// allocating. A token is only ever added after `ImageSigner` verified it; lookups compare
/// the whole token, not only its hash. Bounded: when full it starts over. Thread-safe.
final class VerifiedTokens: Sendable {
    private struct Entry {
        let token: [UInt8]
        let url: String
    }

    private let entries = Locked<[Int: Entry]>([:])
    static let capacity = 65_536

    /// Notes that `token` verified and names `url`.
    func remember(_ token: String, url: String) {
        let bytes = Array(token.utf8)
        let key = bytes.withUnsafeBytes(Self.hash)
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = Entry(token: bytes, url: url)
        }
    }

    /// The URL of a verified token, or nil when this token was not seen (or was forgotten).
    func url(for token: UnsafeRawBufferPointer) -> String? {
        let key = Self.hash(token)
        return entries.withLock { entries in
            guard let entry = entries[key], entry.token.elementsEqual(token) else { return nil }
            return entry.url
        }
    }

    private static func hash(_ bytes: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: bytes)
        return hasher.finalize()
    }
}
