import HTTPCodec
import Testing

@Suite struct ResponseHeadWriterTests {
    @Test func writesAWholeHead() {
        var head: [UInt8] = []
        ResponseHeadWriter.appendStatusLine(200, to: &head)
        ResponseHeadWriter.appendField("Content-Type", "application/json", to: &head)
        ResponseHeadWriter.appendContentLength(1234, to: &head)
        ResponseHeadWriter.appendEnd(to: &head)
        #expect(String(decoding: head, as: UTF8.self) == "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1234\r\n\r\n")
    }

    @Test func statusLinesForEveryCode() {
        for (status, line) in [(204, "HTTP/1.1 204 No Content\r\n"), (417, "HTTP/1.1 417 Expectation Failed\r\n"), (599, "HTTP/1.1 599 Status 599\r\n")] {
            var head: [UInt8] = []
            ResponseHeadWriter.appendStatusLine(status, to: &head)
            #expect(String(decoding: head, as: UTF8.self) == line)
        }
    }

    @Test func decimals() {
        for value in [0, 7, 10, 999, 1_000_000, Int.max] {
            var out: [UInt8] = []
            ResponseHeadWriter.appendDecimal(value, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == String(value))
        }
    }

    @Test func imfFixdates() {
        let cases: [(Int, String)] = [
            (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
            (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
            (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
            (1_795_398_856, "Mon, 23 Nov 2026 01:54:16 GMT"),
            (4_107_542_399, "Sun, 28 Feb 2100 23:59:59 GMT"),
        ]
        for (seconds, text) in cases {
            #expect(String(decoding: HTTPDate.bytes(secondsSinceEpoch: seconds), as: UTF8.self) == text)
        }
    }
}
