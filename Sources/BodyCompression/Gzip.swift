import GatewaySupport

/// Why a gzip body could not be decoded.
public enum GzipError: Error, Sendable, Equatable {
    case corrupt
    case truncated
    case tooLarge(limit: Int)
}

/// gzip for whole bodies, over the system zlib. Safe to call from any thread.
///
/// Deflate streams are costly to set up (about 256 KiB each), so finished ones go back to a
/// small pool and are reset, not rebuilt, for the next body.
public enum Gzip {
    private static let pool = Locked<[Deflater]>([])
    private static let poolLimit = 16

    /// `bytes` as one gzip member. `level` is zlib's 1 (fast) to 9 (small).
    public static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        let deflater =
            pool.withLock { deflaters -> Deflater? in
                guard let index = deflaters.lastIndex(where: { $0.level == level }) else { return nil }
                return deflaters.remove(at: index)
            } ?? Deflater(level: level)
        let output = deflater.gzip(bytes)
        pool.withLock { deflaters in
            if deflaters.count < poolLimit { deflaters.append(deflater) }
        }
        return output
    }

    /// The bytes a gzip (or zlib) body encodes, at most `maxBytes` of them.
    ///
    /// - Throws: `GzipError`.
    public static func decompress(_ bytes: [UInt8], maxBytes: Int) throws(GzipError) -> [UInt8] {
        try Inflater().inflate(bytes, maxBytes: maxBytes)
    }
}
