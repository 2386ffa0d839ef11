import Glibc

/// What an HTTP/2 connection has to write, in order: frames nghttp2 serialised (copied here,
/// as nghttp2 reuses its buffer) and, between them, the bodies of DATA frames sent without
/// copying (a stored answer's bytes, referenced, never copied into nghttp2 or here).
///
/// Plain connections write it with one `writev` of many segments; TLS ones flatten it into
/// records. Value type; owned by one connection on its loop's thread.
struct HTTP2Output {
    enum Segment {
        /// Bytes of this queue's own (frames).
        case owned([UInt8])
        /// Part of a body held elsewhere.
        case shared([UInt8], Range<Int>)

        var count: Int {
            switch self {
            case .owned(let bytes): bytes.count
            case .shared(_, let range): range.count
            }
        }
    }

    private(set) var segments: [Segment] = []
    /// Segments before this index are written.
    private var first = 0
    /// Bytes of `segments[first]` already written.
    private var firstOffset = 0
    /// Bytes queued and not yet written.
    private(set) var byteCount = 0

    var isEmpty: Bool { byteCount == 0 }

    /// Copies `bytes` onto the end (into the last segment when it is this queue's own).
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        byteCount += bytes.count
        if segments.count > first, case .owned(var last) = segments[segments.count - 1] {
            segments[segments.count - 1] = .owned([])
            last.append(contentsOf: bytes)
            segments[segments.count - 1] = .owned(last)
            return
        }
        segments.append(.owned(Array(bytes)))
    }

    /// Queues `range` of `body` without copying it.
    mutating func append(shared body: [UInt8], range: Range<Int>) {
        guard !range.isEmpty else { return }
        byteCount += range.count
        segments.append(.shared(body, range))
    }

    /// Calls `body` with the unwritten segments as `iovec`s (at most `limit` of them) and
    /// drops the bytes it reports written.
    mutating func write(limit: Int = 64, _ body: (UnsafeMutableBufferPointer<iovec>) -> Int) -> Int {
        let count = min(limit, segments.count - first)
        guard count > 0 else { return 0 }
        return withIOVecs(count: count) { vectors in
            let written = body(vectors)
            if written > 0 { consume(written) }
            return written
        }
    }

    /// The unwritten bytes as one array (TLS writes them as records), and the queue emptied.
    mutating func takeAll() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteCount)
        for index in first..<segments.count {
            let skip = index == first ? firstOffset : 0
            switch segments[index] {
            case .owned(let owned): bytes.append(contentsOf: owned[skip...])
            case .shared(let body, let range): bytes.append(contentsOf: body[(range.lowerBound + skip)..<range.upperBound])
            }
        }
        removeAll()
        return bytes
    }

    mutating func removeAll() {
        segments = []
        first = 0
        firstOffset = 0
        byteCount = 0
    }

    private mutating func consume(_ written: Int) {
        var rest = written
        byteCount -= written
        while rest > 0 {
            let left = segments[first].count - firstOffset
            if rest < left {
                firstOffset += rest
                return
            }
            rest -= left
            segments[first] = .owned([])
            first += 1
            firstOffset = 0
        }
        if first == segments.count {
            segments.removeAll(keepingCapacity: true)
            first = 0
        }
    }

    /// The first `count` unwritten segments as `iovec`s; the pointers are valid during `body`.
    private func withIOVecs<R>(count: Int, _ body: (UnsafeMutableBufferPointer<iovec>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: iovec.self, capacity: count) { vectors in
            func fill(_ index: Int) -> R {
                guard index < count else { return body(vectors) }
                let skip = index == 0 ? firstOffset : 0
                switch segments[first + index] {
                case .owned(let bytes):
                    return bytes.withUnsafeBytes { raw in
                        vectors[index] = iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress! + skip), iov_len: raw.count - skip)
                        return fill(index + 1)
                    }
                case .shared(let bytes, let range):
                    return bytes.withUnsafeBytes { raw in
                        vectors[index] = iovec(
                            iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress! + range.lowerBound + skip), iov_len: range.count - skip)
                        return fill(index + 1)
                    }
                }
            }
            return fill(0)
        }
    }
}
