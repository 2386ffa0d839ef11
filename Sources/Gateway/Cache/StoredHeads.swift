import HTTPCodec
import HTTPInterface

/// The response heads of one stored entry, laid out once when the entry is made in both wire
/// forms: status, `Content-Type`, `ETag`, `Content-Encoding` and the entry's fixed fields. A
/// hit appends only what differs per request (freshness left, request id, Date, length).
///
/// A class: a hit copies its `CachedPage`, and one reference costs one retain where the
/// eight arrays of a struct would cost eight.
public final class StoredHeads: Sendable, Equatable {
    /// 200 (or the entry's status) with the identity body's fields.
    public let identity: StoredFields
    /// The same for the gzip body; nil without one.
    public let gzip: StoredFields?
    /// 304 for the identity representation: `ETag` and the fixed fields, no content fields.
    public let notModified: StoredFields
    public let notModifiedGzip: StoredFields?

    init(status: Int, contentType: String, etag: String, gzipETag: String?, fields: [(String, String)]) {
        func head(_ status: Int, etag: String, content: Bool, gzip: Bool) -> StoredFields {
            var all = [("ETag", etag)] + fields
            if content {
                all.append(("Content-Type", contentType))
                if gzip { all.append(("Content-Encoding", "gzip")) }
            }
            return StoredFields(status: status, fields: all)
        }
        identity = head(status, etag: etag, content: true, gzip: false)
        gzip = gzipETag.map { head(status, etag: $0, content: true, gzip: true) }
        notModified = head(304, etag: etag, content: false, gzip: false)
        notModifiedGzip = gzipETag.map { head(304, etag: $0, content: false, gzip: false) }
    }

    /// Appends the head for a full answer or a 304, in the chosen representation, to
    /// `answer` in its wire form.
    public func append(gzip useGzip: Bool, notModified isNotModified: Bool, to answer: inout StoredAnswer) {
        switch (useGzip, isNotModified) {
        case (true, false): answer.append(gzip ?? identity)
        case (true, true): answer.append(notModifiedGzip ?? notModified)
        case (false, false): answer.append(identity)
        case (false, true): answer.append(notModified)
        }
    }

    public static func == (left: StoredHeads, right: StoredHeads) -> Bool {
        left.identity == right.identity && left.gzip == right.gzip && left.notModified == right.notModified
            && left.notModifiedGzip == right.notModifiedGzip
    }

    var byteCount: Int { identity.byteCount + (gzip?.byteCount ?? 0) + notModified.byteCount + (notModifiedGzip?.byteCount ?? 0) }
}
