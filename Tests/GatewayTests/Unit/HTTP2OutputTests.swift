import Glibc
import Testing

@testable import Transport

/// `HTTP2Output` against a plain byte array as its model: whatever is appended comes out in
/// order, whole, whatever the sizes of the writes that take it.
@Suite struct HTTP2OutputTests {
    /// Bytes `from..<from+count` of a repeating pattern, so misplaced bytes show.
    static func pattern(_ from: Int, _ count: Int) -> [UInt8] {
        (from..<(from + count)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    }

    /// Takes at most `limit` bytes from the vectors, as a short `writev` would.
    static func take(_ vectors: UnsafeMutableBufferPointer<iovec>, limit: Int, into sink: inout [UInt8]) -> Int {
        var taken = 0
        for vector in vectors where taken < limit {
            let count = min(vector.iov_len, limit - taken)
            sink.append(contentsOf: UnsafeRawBufferPointer(start: vector.iov_base, count: count))
            taken += count
        }
        return taken
    }

    @Test func framesAppendedInARowAreOneSegmentAndBodiesStayApart() {
        var output = HTTP2Output()
        let header = Self.pattern(0, 9)
        let body = Self.pattern(100, 50)
        header.withUnsafeBytes { output.append($0) }
        header.withUnsafeBytes { output.append($0) }
        output.append(shared: body, range: 10..<40)
        header.withUnsafeBytes { output.append($0) }
        #expect(output.segments.count == 3)
        #expect(output.byteCount == 9 + 9 + 30 + 9)
        var sink: [UInt8] = []
        let written = output.write { Self.take($0, limit: .max, into: &sink) }
        #expect(written == 57)
        #expect(sink == header + header + Array(body[10..<40]) + header)
        #expect(output.isEmpty)
        #expect(output.segments.isEmpty)
    }

    @Test func shortWritesResumeWhereTheyStopped() {
        var output = HTTP2Output()
        let frames = Self.pattern(0, 20)
        let body = Self.pattern(500, 100)
        frames.withUnsafeBytes { output.append($0) }
        output.append(shared: body, range: 0..<100)
        frames.withUnsafeBytes { output.append($0) }
        var sink: [UInt8] = []
        for limit in [7, 1, 30, 45, 13, 1000] {
            _ = output.write { Self.take($0, limit: limit, into: &sink) }
        }
        #expect(sink == frames + body + frames)
        #expect(output.isEmpty)
    }

    @Test func aRecordsWorthIsTakenInPlaceWhenOneSegmentHoldsIt() {
        var output = HTTP2Output()
        let body = Self.pattern(0, 64)
        output.append(shared: body, range: 0..<64)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { scratch.deallocate() }
        var inPlace = false
        var sink: [UInt8] = []
        let written = output.writeContiguous(limit: 16, scratch: scratch) { span in
            inPlace = span.baseAddress != UnsafeRawPointer(scratch.baseAddress)
            sink.append(contentsOf: span)
            return span.count
        }
        #expect(written == 16)
        #expect(inPlace)
        #expect(sink == Array(body[0..<16]))
        #expect(output.byteCount == 48)
    }

    @Test func aRecordsWorthIsGatheredAcrossSegments() {
        var output = HTTP2Output()
        let header = Self.pattern(0, 9)
        let body = Self.pattern(200, 5)
        header.withUnsafeBytes { output.append($0) }
        output.append(shared: body, range: 0..<5)
        header.withUnsafeBytes { output.append($0) }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { scratch.deallocate() }
        var spans: [[UInt8]] = []
        // A refused write (as SSL_ERROR_WANT_WRITE) takes nothing; the retry sees the same bytes.
        #expect(output.writeContiguous(limit: 16, scratch: scratch) { spans.append(Array($0)); return -1 } == -1)
        #expect(output.byteCount == 23)
        while !output.isEmpty {
            _ = output.writeContiguous(limit: 16, scratch: scratch) { span in
                spans.append(Array(span))
                return span.count
            }
        }
        #expect(spans == [Array((header + body + header)[0..<16]), Array((header + body + header)[0..<16]), Array((header + body + header)[16...])])
    }

    /// Many appends and writes of every size, with bodies and frames mixed, and the queue
    /// rarely drained (so the frame buffer compacts): the bytes out are the bytes in.
    @Test func aLongMixedRunComesOutWhole() {
        var output = HTTP2Output()
        var expected: [UInt8] = []
        var sink: [UInt8] = []
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        let bodies = (0..<4).map { Self.pattern($0 * 1000, 20_000) }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 16)
        defer { scratch.deallocate() }
        var position = 0
        for _ in 0..<3000 {
            switch next(4) {
            case 0, 1:
                let frame = Self.pattern(position, 1 + next(3000))
                position += frame.count
                frame.withUnsafeBytes { output.append($0) }
                expected += frame
            case 2:
                let body = bodies[next(bodies.count)]
                let start = next(body.count)
                let end = min(body.count, start + next(9000))
                output.append(shared: body, range: start..<end)
                expected += body[start..<end]
            default:
                let limit = next(40_000)
                if next(2) == 0 {
                    _ = output.write(limit: 1 + next(64)) { Self.take($0, limit: limit, into: &sink) }
                } else {
                    _ = output.writeContiguous(limit: scratch.count, scratch: scratch) { span in
                        let count = min(span.count, limit)
                        sink.append(contentsOf: span[0..<count])
                        return count
                    }
                }
            }
            #expect(output.byteCount == expected.count - sink.count)
        }
        while !output.isEmpty {
            _ = output.write { Self.take($0, limit: .max, into: &sink) }
        }
        #expect(sink == expected)
    }

    @Test func storageIsReleasedOnlyWhenNothingIsQueued() {
        var output = HTTP2Output()
        let frame = Self.pattern(0, 100)
        frame.withUnsafeBytes { output.append($0) }
        output.releaseStorage()
        #expect(output.byteCount == 100)
        var sink: [UInt8] = []
        _ = output.write { Self.take($0, limit: .max, into: &sink) }
        #expect(sink == frame)
        output.releaseStorage()
        #expect(output.isEmpty)
        #expect(output.segments.isEmpty)
    }
}
