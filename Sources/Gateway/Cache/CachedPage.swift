import HTTPCodec

/// One cached answer: the final contract bytes, as identity and (when worth it) gzip, with
/// a strong ETag per representation. A hit writes these bytes and does nothing else.
public struct CachedPage: Sendable, Equatable {
    /// 200, or 404 for a short negative entry.
    public let status: Int
    public let contentType: String
    public let identity: [UInt8]
    /// The gzip representation; nil when the body is too small to be worth it.
    public let gzip: [UInt8]?
    /// Strong validator of the identity bytes, quoted (`"3f2a…"`).
    public let etag: String
    /// Strong validator of the gzip bytes: the identity tag with `-gzip` before the quote.
    public let gzipETag: String
    public let storedAt: ContinuousClock.Instant
    /// How long it is fresh (shortened for pages stored while replicas cannot tell this one
    /// about writes; see `PageCache.freshnessCap`).
    public internal(set) var timeToLive: Duration
    /// Whether, past its time to live, it is served while one refresh runs
    /// (stale-while-revalidate). False for a page answered with placeholders still being
    /// computed: the next read waits for a page that has them.
    public internal(set) var revalidatesInBackground = true
    /// Set on a page the prefetch lane fetched: counts whether a client read it.
    var prefetch: PrefetchMark?
    /// The header fields given at `init` besides the content fields (the shared tier stores
    /// them with the bodies).
    public let fields: [Field]
    /// The heads a stored answer writes, made once here.
    public let heads: StoredHeads

    /// - Parameter fields: header fields every answer from this entry carries besides
    ///   `ETag`, `Content-Type` and `Content-Encoding` (for pages: `Vary`, `Content-Language`).
    /// - Parameter etag: the identity bytes' tag when they are not given (an entry whose
    ///   body stays in a file); computed from `identity` otherwise.
    public init(
        status: Int, contentType: String, identity: [UInt8], gzip: [UInt8]?, storedAt: ContinuousClock.Instant,
        timeToLive: Duration, fields: [(String, String)] = [], etag knownTag: String? = nil
    ) {
        self.status = status
        self.contentType = contentType
        self.identity = identity
        self.gzip = gzip
        let etag = knownTag ?? EntityTag.strong(for: identity)
        self.etag = etag
        self.storedAt = storedAt
        self.timeToLive = timeToLive
        let gzipETag = String(etag.dropLast()) + "-gzip\""
        self.gzipETag = gzipETag
        heads = StoredHeads(status: status, contentType: contentType, etag: etag, gzipETag: gzip == nil ? nil : gzipETag, fields: fields)
        self.fields = fields.map { Field(name: $0.0, value: $0.1) }
        etagBytes = Array(etag.utf8)
        gzipETagBytes = Array(gzipETag.utf8)
    }

    /// One header field of ``fields``.
    public struct Field: Sendable, Equatable {
        public let name: String
        public let value: String
    }

    private let etagBytes: [UInt8]
    private let gzipETagBytes: [UInt8]

    /// Bytes it holds against the cache's budget (bodies, heads, and a fixed allowance for
    /// the entry's bookkeeping).
    var cost: Int { identity.count + (gzip?.count ?? 0) + heads.byteCount + 256 }

    /// Whether an `If-None-Match` value's bytes name this page, in either representation:
    /// `*`, or any listed tag, compared weakly as RFC 9110 §13.1.2 asks. One pass over the
    /// bytes, no allocation, whatever the client sends (a tag as a client echoes it is the
    /// common case).
    public func matches(ifNoneMatch bytes: UnsafeRawBufferPointer) -> Bool {
        if bytes.elementsEqual(etagBytes) || bytes.elementsEqual(gzipETagBytes) { return true }
        // Stopped: a tag matched.
        return !HTTPSyntax.forEachListElement(in: bytes) { element in
            var tag = element.bytes(in: bytes)
            if tag.count >= 2, tag[0] == UInt8(ascii: "W"), tag[1] == UInt8(ascii: "/") { tag = UnsafeRawBufferPointer(rebasing: tag[2...]) }
            let matched = (tag.count == 1 && tag[0] == UInt8(ascii: "*")) || tag.elementsEqual(etagBytes) || tag.elementsEqual(gzipETagBytes)
            return !matched
        }
    }

    /// `matches(ifNoneMatch:)` on a `String` value.
    public func matches(ifNoneMatch: String) -> Bool {
        var value = ifNoneMatch
        return value.withUTF8 { matches(ifNoneMatch: UnsafeRawBufferPointer($0)) }
    }
}

/// Entity tags computed from content, identical on every replica and across restarts.
public enum EntityTag {
    /// `"` + 16 hex digits of the 64-bit FNV-1a hash of `bytes` + `"`.
    public static func strong(for bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        let digits = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - digits.count) + digits + "\""
    }
}
