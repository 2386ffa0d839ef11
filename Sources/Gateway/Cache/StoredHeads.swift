import HTTPCodec

/// The response heads of one stored entry, laid out once when the entry is made: status
/// line, `Content-Type`, `ETag`, `Content-Encoding` and the entry's fixed fields. A hit
/// appends only what differs per request (freshness left, request id, Date, length).
public struct StoredHeads: Sendable, Equatable {
    /// 200 (or the entry's status) with the identity body's fields.
    public let identity: [UInt8]
    /// The same for the gzip body; nil without one.
    public let gzip: [UInt8]?
    /// 304 for the identity representation: `ETag` and the fixed fields, no content fields.
    public let notModified: [UInt8]
    public let notModifiedGzip: [UInt8]?

    init(status: Int, contentType: String, etag: String, gzipETag: String?, fields: [(String, String)]) {
        func head(_ status: Int, etag: String, content: Bool, gzip: Bool) -> [UInt8] {
            var bytes: [UInt8] = []
            ResponseHeadWriter.appendStatusLine(status, to: &bytes)
            ResponseHeadWriter.appendField("ETag", etag, to: &bytes)
            for (name, value) in fields { ResponseHeadWriter.appendField(name, value, to: &bytes) }
            if content {
                ResponseHeadWriter.appendField("Content-Type", contentType, to: &bytes)
                if gzip { ResponseHeadWriter.appendField("Content-Encoding", "gzip", to: &bytes) }
            }
            return bytes
        }
        identity = head(status, etag: etag, content: true, gzip: false)
        gzip = gzipETag.map { head(status, etag: $0, content: true, gzip: true) }
        notModified = head(304, etag: etag, content: false, gzip: false)
        notModifiedGzip = gzipETag.map { head(304, etag: $0, content: false, gzip: false) }
    }

    /// The head for a full answer or a 304, in the chosen representation.
    public func head(gzip useGzip: Bool, notModified isNotModified: Bool) -> [UInt8] {
        switch (useGzip, isNotModified) {
        case (true, false): gzip ?? identity
        case (true, true): notModifiedGzip ?? notModified
        case (false, false): identity
        case (false, true): notModified
        }
    }

    var byteCount: Int { identity.count + (gzip?.count ?? 0) + notModified.count + (notModifiedGzip?.count ?? 0) }
}
