import Crypto
import GatewayModels

/// The prefixes of the gateway's keys in the shared Redis. Replicas in front of one origin
/// share one namespace; a replica configured for another origin or generation never reads
/// the first one's records.
package enum ReplicaNamespace {
    /// `omg:<16 hex digits>:`: for records about writes (`Idempotency-Key`), named by the
    /// origin's URL and generation only, so a rolling deploy that changes anything else still
    /// finds every key.
    static func writes(origin: String, generation: OriginGeneration) -> String {
        "omg:" + digest([Array("writes".utf8), Array(origin.utf8), Array(generation.rawValue.utf8)]).prefix(16) + ":"
    }

    /// `omg:<16 hex digits>:`: for shared pages, named by everything that shapes a page's
    /// bytes: the origin's URL and generation, the contract version, the image signing key
    /// (a fingerprint of it: image URLs in pages are signed) and the public URL (image URLs
    /// are absolute under it). A misconfigured replica, or one of another version in a rolling
    /// deploy, never serves another's pages.
    static func pages(origin: String, generation: OriginGeneration, signingKey: [UInt8], publicURL: String?) -> String {
        let parts = [
            Array("pages".utf8), Array(origin.utf8), Array(generation.rawValue.utf8), Array(ContractVersion.current.utf8),
            Array(digest([signingKey]).utf8), Array((publicURL ?? "").utf8),
        ]
        return "omg:" + digest(parts).prefix(16) + ":"
    }

    /// `omg:<16 hex digits>:rl:`: for the per-client budgets, named by the origin's URL and
    /// generation (the clients of one deployment).
    package static func rateLimits(origin: String, generation: OriginGeneration) -> String {
        "omg:" + digest([Array("ratelimits".utf8), Array(origin.utf8), Array(generation.rawValue.utf8)]).prefix(16) + ":rl:"
    }

    /// Hex SHA-256 of the parts, each preceded by its length (so parts cannot run into each
    /// other).
    static func digest(_ parts: [[UInt8]]) -> String {
        var hash = SHA256()
        for part in parts {
            var length = UInt64(part.count).bigEndian
            withUnsafeBytes(of: &length) { hash.update(bufferPointer: $0) }
            hash.update(data: part)
        }
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in hash.finalize() {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
