import Glibc
import Testing
@testable import Transport

/// An HTTP/2 connection's output queue: frames copied, bodies referenced, written with
/// `writev` or flattened for TLS with where answers end.
@Suite struct HTTP2OutputTests {
    static func append(_ text: String, to output: inout HTTP2Output) {
        Array(text.utf8).withUnsafeBytes { output.append($0) }
    }

    @Test func flattensFramesAndSharedBodiesWithAnswerEnds() {
        var output = HTTP2Output()
        let body = Array("0123456789".utf8)
        Self.append("H1", to: &output)
        Self.append("h1", to: &output)
        output.append(shared: body, range: 2..<6)
        output.markAnswerEnd()
        output.markAnswerEnd()
        Self.append("H2", to: &output)
        output.append(shared: body, range: 0..<3)
        output.markAnswerEnd()
        #expect(output.byteCount == 4 + 4 + 2 + 3)
        let (bytes, ends) = output.takeAll()
        #expect(String(decoding: bytes, as: UTF8.self) == "H1h12345H2012")
        // The last answer ends at the end: no cut is needed there.
        #expect(ends == [8])
        #expect(output.isEmpty)
    }

    /// After a short write the rest goes back with its answer ends, and later appends count on.
    @Test func aShortWriteRestoresTheRestAndItsEnds() {
        var output = HTTP2Output()
        Self.append("aaaa", to: &output)
        output.markAnswerEnd()
        Self.append("bbbb", to: &output)
        output.markAnswerEnd()
        Self.append("cc", to: &output)
        let (bytes, ends) = output.takeAll()
        #expect(ends == [4, 8])
        // Three bytes were written.
        output.restore(bytes[3...], answerEnds: ends.map { $0 - 3 }[...])
        Self.append("dd", to: &output)
        output.markAnswerEnd()
        let (again, againEnds) = output.takeAll()
        #expect(String(decoding: again, as: UTF8.self) == "abbbbccdd")
        #expect(againEnds == [1, 5])
    }

    /// The plain path writes segments with writev and forgets answer ends it passed.
    @Test func writevConsumesAcrossSegments() {
        var output = HTTP2Output()
        let body = Array("xyz".utf8)
        Self.append("ab", to: &output)
        output.append(shared: body, range: 0..<3)
        output.markAnswerEnd()
        Self.append("cd", to: &output)
        var seen: [String] = []
        let written = output.write { vectors in
            seen = vectors.map { String(decoding: UnsafeRawBufferPointer(start: $0.iov_base, count: $0.iov_len), as: UTF8.self) }
            return 4
        }
        #expect(seen == ["ab", "xyz", "cd"])
        #expect(written == 4)
        #expect(output.byteCount == 3)
        let (rest, ends) = output.takeAll()
        #expect(String(decoding: rest, as: UTF8.self) == "zcd")
        #expect(ends == [1])
    }
}
