import Testing
@testable import Gateway

@Suite struct RequestHeadScannerTests {
    /// Scans `input` in pieces of `pieceSize` bytes and returns the rewritten bytes.
    private func scanned(_ input: [UInt8], pieceSize: Int = .max) -> [UInt8] {
        var scanner = RequestHeadScanner()
        var bytes = input
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + pieceSize)
            bytes[start..<end].withUnsafeMutableBufferPointer { scanner.scan($0) }
            start = end
        }
        return bytes
    }

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func rewritesNulInHeaderValueToDel() {
        let input = bytes("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n")
        let expected = bytes("GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u{7F}b\r\n\r\n")
        #expect(scanned(input) == expected)
        #expect(scanned(input, pieceSize: 1) == expected)
    }

    @Test func leavesContentLengthBodiesAlone() {
        let head = bytes("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\n")
        let body: [UInt8] = [0, 1, 0, 0x0A, 0x0A, 0]
        let next = bytes("GET / HTTP/1.1\r\nX: \u{0}\r\n\r\n")
        let output = scanned(head + body + next, pieceSize: 7)
        #expect(output == head + body + bytes("GET / HTTP/1.1\r\nX: \u{7F}\r\n\r\n"))
    }

    @Test func followsChunkedBodiesAndTrailers() {
        let input = bytes("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\n")
            + [0, 0, 0] + bytes("\r\n0\r\nX-T: \u{0}\r\n\r\nGET / HTTP/1.1\r\nX: \u{0}\r\n\r\n")
        let expected = bytes("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\n")
            + [0, 0, 0] + bytes("\r\n0\r\nX-T: \u{7F}\r\n\r\nGET / HTTP/1.1\r\nX: \u{7F}\r\n\r\n")
        #expect(scanned(input) == expected)
        #expect(scanned(input, pieceSize: 2) == expected)
    }

    @Test func firstContentLengthWinsAsInLibevent() {
        var scanner = RequestHeadScanner()
        var input = bytes("POST / HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 9\r\n\r\n")
        input.withUnsafeMutableBufferPointer { scanner.scan($0) }
        #expect(scanner.state == .body(remaining: 2))
    }

    @Test func stopsRewritingWhenFramingIsLost() {
        var scanner = RequestHeadScanner()
        var input = bytes("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\u{0}")
        input.withUnsafeMutableBufferPointer { scanner.scan($0) }
        #expect(scanner.state == .lost)
        #expect(input.last == 0)
    }

    @Test(arguments: ["-5", "+5", "0x5", " 5", "", ";a=b", "5x", "1000000000000000", "ffffffffffffffffff"])
    func refusesChunkSizesThatAreNotPlainHex(_ line: String) {
        #expect(RequestHeadScanner.chunkSize(bytes(line)) == nil)
    }

    @Test func readsPlainHexChunkSizesWithExtensions() {
        #expect(RequestHeadScanner.chunkSize(bytes("5")) == 5)
        #expect(RequestHeadScanner.chunkSize(bytes("1A;name=value")) == 26)
        #expect(RequestHeadScanner.chunkSize(bytes("ff \t;x")) == 255)
        #expect(RequestHeadScanner.chunkSize(bytes("fffffffffffffff")) == 0xfff_ffff_ffff_ffff)
    }

    /// Regression: a signed chunk size once became a negative byte count to skip, and the
    /// scan loop stepped backwards for ever (the event loop spun at 100% CPU).
    @Test func negativeChunkSizeLosesTheFramingAndReturns() {
        var scanner = RequestHeadScanner()
        var input = bytes("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n")
        input.withUnsafeMutableBufferPointer { scanner.scan($0) }
        #expect(scanner.state == .lost)
    }
}
