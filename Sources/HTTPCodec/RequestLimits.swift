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

    public init(maxHeadBytes: Int = 16 * 1024, maxTargetBytes: Int = 8192, maxFieldCount: Int = 100, maxBodyBytes: Int = 4 * 1024 * 1024) {
        self.maxHeadBytes = maxHeadBytes
        self.maxTargetBytes = maxTargetBytes
        self.maxFieldCount = maxFieldCount
        self.maxBodyBytes = maxBodyBytes
    }
}
