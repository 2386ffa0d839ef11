/// The bounds a `RequestDecoder` enforces while it reads.
public struct RequestLimits: Sendable, Equatable {
    /// Request line plus header fields (the blank line included); beyond it: 431.
    public var maxHeadBytes: Int
    /// The request-target alone; beyond it: 414.
    public var maxTargetBytes: Int
    /// Number of header fields; beyond it: 431.
    public var maxFieldCount: Int
    /// The decoded body; beyond it: 413, judged on Content-Length before any body byte is
    /// read, and on each chunk size for chunked bodies.
    public var maxBodyBytes: Int
    /// The decoded body of a request to one of ``uploadRoutes`` (writes that carry images),
    /// instead of ``maxBodyBytes``.
    public var maxUploadBytes: Int
    /// The requests that may carry uploads: the routes that declare the upload limit in the
    /// application's route table (`Router.uploadRoutes`).
    public var uploadRoutes: [UploadRoute]

    public init(
        maxHeadBytes: Int = 16 * 1024, maxTargetBytes: Int = 8192, maxFieldCount: Int = 100, maxBodyBytes: Int = 4 * 1024 * 1024,
        maxUploadBytes: Int? = nil, uploadRoutes: [UploadRoute] = []
    ) {
        self.maxHeadBytes = maxHeadBytes
        self.maxTargetBytes = maxTargetBytes
        self.maxFieldCount = maxFieldCount
        self.maxBodyBytes = maxBodyBytes
        self.maxUploadBytes = maxUploadBytes ?? maxBodyBytes
        self.uploadRoutes = uploadRoutes
    }

    /// The body limit of a request whose method and path (as sent, still percent-encoded)
    /// are these: ``maxUploadBytes`` for an upload route, else ``maxBodyBytes``.
    func maxBodyBytes(method: ByteRange, path: ByteRange, in bytes: UnsafeRawBufferPointer) -> Int {
        for route in uploadRoutes where route.matches(method: method, path: path, in: bytes) { return maxUploadBytes }
        return maxBodyBytes
    }
}

/// Requests that may carry uploads: one method, and a path that is `path` exactly, or (with
/// `oneSegmentUnder`) one segment under it (`/v1/products/7`, not `/v1/products/7/x`, nor a
/// dot segment, which no route matches). Compared byte for byte with the path as sent: an
/// encoded spelling of the same path gets the ordinary limit, never a larger one. Made from
/// the route table, not by hand.
public struct UploadRoute: Sendable, Equatable {
    /// The bytes compared, kept so that matching allocates nothing (it runs on every request).
    let method: [UInt8]
    let path: [UInt8]
    let oneSegmentUnder: Bool

    public init(method: String, path: String, oneSegmentUnder: Bool = false) {
        self.method = Array(method.utf8)
        self.path = Array(path.utf8)
        self.oneSegmentUnder = oneSegmentUnder
    }

    func matches(method methodRange: ByteRange, path pathRange: ByteRange, in bytes: UnsafeRawBufferPointer) -> Bool {
        guard methodRange.count == method.count, pathRange.count >= path.count else { return false }
        for offset in 0..<method.count where bytes[methodRange.lowerBound + offset] != method[offset] { return false }
        for offset in 0..<path.count where bytes[pathRange.lowerBound + offset] != path[offset] { return false }
        guard oneSegmentUnder else { return pathRange.count == path.count }
        // "/" and then at least one byte, none of them "/", and not "." or "..".
        let rest = pathRange.lowerBound + path.count
        guard pathRange.count > path.count + 1, bytes[rest] == UInt8(ascii: "/") else { return false }
        var dots = true
        for index in (rest + 1)..<pathRange.upperBound {
            if bytes[index] == UInt8(ascii: "/") { return false }
            if bytes[index] != UInt8(ascii: ".") { dots = false }
        }
        return !(dots && pathRange.upperBound - rest - 1 <= 2)
    }
}
