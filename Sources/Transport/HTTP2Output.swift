import Glibc

/// What an HTTP/2 connection has to write, in order: frames nghttp2 serialised (copied into
/// this queue's one frame buffer, as nghttp2 reuses its own) and, between them, the bodies of
/// DATA frames sent without copying (a stored answer's bytes, referenced, never copied into
/// nghttp2 or here).
///
/// Plain connections write it with one `writev` of many segments; TLS ones hand it to
/// `SSL_write` a record's worth at a time (``writeContiguous(limit:scratch:_:)``). Once its
/// buffers have grown to a connection's usual output, queueing and writing allocate nothing;
/// ``releaseStorage()`` gives them back while the connection idles.
///
/// Value type; owned by one connection on its loop's thread.
struct HTTP2Output {
    enum Segment {
        /// Bytes of ``frames``.
        case frames(Range<Int>)
        /// Part of a body held elsewhere.
        case shared([UInt8], Range<Int>)

        var count: Int {
            switch self {
            case .frames(let range): range.count
            case .shared(_, let range): range.count
            }
        }
    }

    /// Serialised frames, appended in order; emptied (its capacity kept) whenever everything
    /// queued is written.
    private var frames: [UInt8] = []
    private(set) var segments: [Segment] = []
    /// Segments before this index are written.
    private var first = 0
    /// Bytes of `segments[first]` already written.
    private var firstOffset = 0
    /// Bytes queued and not yet written.
    private(set) var byteCount = 0

    var isEmpty: Bool { byteCount == 0 }

    /// Written frames at the front of ``frames`` are dropped once they pass this many bytes
    /// with output still queued (a client that reads slowly while answers keep coming).
    static let compactAfter = 32 * 1024
    /// A frame buffer larger than this is let go, not kept, when it empties.
    static let keptCapacity = 64 * 1024

    /// Copies `bytes` onto the end (into the last segment when it holds frames too).
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        byteCount += bytes.count
        let start = frames.count
        frames.append(contentsOf: bytes)
        if segments.count > first, case .frames(let last) = segments[segments.count - 1], last.upperBound == start {
            segments[segments.count - 1] = .frames(last.lowerBound..<frames.count)
            return
        }
        segments.append(.frames(start..<frames.count))
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
        let written = frames.withUnsafeBytes { frameBytes in
            withUnsafeTemporaryAllocation(of: iovec.self, capacity: count) { vectors in
                // Each segment's bytes are reached inside its own closure: the vectors are
                // filled one level deeper each, and used at the innermost.
                func fill(_ index: Int) -> Int {
                    guard index < count else { return body(vectors) }
                    return withUnwritten(index, frames: frameBytes) { span in
                        vectors[index] = iovec(iov_base: UnsafeMutableRawPointer(mutating: span.baseAddress), iov_len: span.count)
                        return fill(index + 1)
                    }
                }
                return fill(0)
            }
        }
        if written > 0 { consume(written) }
        return written
    }

    /// Calls `body` with the next `limit` unwritten bytes (fewer when fewer are queued) in one
    /// span: the first segment's own bytes when it holds that many, else copied into
    /// `scratch` (at least `limit` bytes; lent for the call). Drops the bytes `body` reports
    /// written. A TLS connection passes a record's worth: a retry after `SSL_ERROR_WANT_WRITE`
    /// then passes the same bytes again, at least as many, maybe from the other place, which
    /// `SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER` allows.
    mutating func writeContiguous(limit: Int, scratch: UnsafeMutableRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Int) -> Int {
        let total = min(limit, byteCount)
        guard total > 0 else { return 0 }
        precondition(scratch.count >= total, "the scratch buffer holds less than a record")
        let written = frames.withUnsafeBytes { frameBytes in
            let direct: Int? = withUnwritten(0, frames: frameBytes) { head in
                head.count >= total ? body(UnsafeRawBufferPointer(rebasing: head[0..<total])) : nil
            }
            if let direct { return direct }
            var filled = 0
            var index = 0
            while filled < total {
                filled += withUnwritten(index, frames: frameBytes) { span in
                    let taken = min(span.count, total - filled)
                    (scratch.baseAddress! + filled).copyMemory(from: span.baseAddress!, byteCount: taken)
                    return taken
                }
                index += 1
            }
            return body(UnsafeRawBufferPointer(rebasing: scratch[0..<total]))
        }
        if written > 0 { consume(written) }
        return written
    }

    /// Empties the queue (a connection closing).
    mutating func removeAll() {
        frames = []
        segments = []
        first = 0
        firstOffset = 0
        byteCount = 0
    }

    /// Gives the buffers' storage back when nothing is queued (a connection idling).
    mutating func releaseStorage() {
        guard isEmpty else { return }
        removeAll()
    }

    /// Calls `body` with the unwritten part of segment `first + index`, valid during the call.
    private func withUnwritten<R>(_ index: Int, frames frameBytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let skip = index == 0 ? firstOffset : 0
        switch segments[first + index] {
        case .frames(let range):
            return body(UnsafeRawBufferPointer(rebasing: frameBytes[(range.lowerBound + skip)..<range.upperBound]))
        case .shared(let bytes, let range):
            return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[(range.lowerBound + skip)..<range.upperBound])) }
        }
    }

    private mutating func consume(_ written: Int) {
        var rest = written
        byteCount -= written
        while rest > 0 {
            let left = segments[first].count - firstOffset
            if rest < left {
                firstOffset += rest
                break
            }
            rest -= left
            // Lets go of a shared body at once.
            segments[first] = .frames(0..<0)
            first += 1
            firstOffset = 0
        }
        if first == segments.count {
            segments.removeAll(keepingCapacity: true)
            first = 0
            if frames.capacity > Self.keptCapacity { frames = [] } else { frames.removeAll(keepingCapacity: true) }
        } else {
            compact()
        }
    }

    /// Drops written frames and segments from the front once they pass ``compactAfter``
    /// bytes, shifting what is queued.
    private mutating func compact() {
        var start: Int?
        for index in first..<segments.count {
            if case .frames(let range) = segments[index] {
                start = range.lowerBound + (index == first ? firstOffset : 0)
                break
            }
        }
        let dropped = start ?? frames.count
        guard dropped > Self.compactAfter else { return }
        frames.removeSubrange(0..<dropped)
        var kept: [Segment] = []
        kept.reserveCapacity(segments.count - first)
        for index in first..<segments.count {
            switch segments[index] {
            case .frames(let range):
                let skip = index == first ? firstOffset : 0
                kept.append(.frames((range.lowerBound + skip - dropped)..<(range.upperBound - dropped)))
            case .shared(let body, let range):
                let skip = index == first ? firstOffset : 0
                kept.append(.shared(body, (range.lowerBound + skip)..<range.upperBound))
            }
        }
        segments = kept
        first = 0
        firstOffset = 0
    }
}
