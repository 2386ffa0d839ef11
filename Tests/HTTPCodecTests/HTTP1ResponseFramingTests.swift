import HTTPCodec
import Testing

@Suite struct HTTP1ResponseFramingTests {
    /// What `framing` appends for one answer, and whether it sends the body.
    func end(
        _ framing: HTTP1ResponseFraming, status: Int = 200, head isHead: Bool = false, length: Int = 5, declared: String? = nil
    ) -> (String, Bool) {
        var bytes: [UInt8] = []
        let sendsBody = framing.appendEnd(status: status, isHeadRequest: isHead, bodyLength: length, headContentLength: declared, to: &bytes)
        return (String(decoding: bytes, as: UTF8.self), sendsBody)
    }

    let keptAlive = HTTP1ResponseFraming(closeAfter: false, http10: false)
    let closing = HTTP1ResponseFraming(closeAfter: true, http10: false)
    let keptAlive10 = HTTP1ResponseFraming(closeAfter: false, http10: true)
    let closing10 = HTTP1ResponseFraming(closeAfter: true, http10: true)

    @Test func theConnectionField() {
        #expect(end(keptAlive) == ("Content-Length: 5\r\n\r\n", true))
        #expect(end(closing) == ("Content-Length: 5\r\nConnection: close\r\n\r\n", true))
        #expect(end(keptAlive10) == ("Content-Length: 5\r\nConnection: keep-alive\r\n\r\n", true))
        #expect(end(closing10) == ("Content-Length: 5\r\nConnection: close\r\n\r\n", true))
        #expect(end(keptAlive, length: 0) == ("Content-Length: 0\r\n\r\n", true))
    }

    @Test func headSaysTheLengthAndSendsNoBody() {
        #expect(end(keptAlive, head: true, length: 1234) == ("Content-Length: 1234\r\n\r\n", false))
        #expect(end(closing, head: true, length: 0) == ("Content-Length: 0\r\nConnection: close\r\n\r\n", false))
    }

    @Test func headTakesTheHandlersDeclaredLengthWhenItIsDigits() {
        #expect(end(keptAlive, head: true, length: 0, declared: "98765") == ("Content-Length: 98765\r\n\r\n", false))
        #expect(end(keptAlive, head: true, length: 0, declared: "0") == ("Content-Length: 0\r\n\r\n", false))
        for unusable in ["", "12a", " 12", "-1", "1.5", "١٢"] {
            #expect(end(keptAlive, head: true, length: 7, declared: unusable) == ("Content-Length: 7\r\n\r\n", false))
        }
        // Only for HEAD: a GET's length is its body's.
        #expect(end(keptAlive, head: false, length: 7, declared: "98765") == ("Content-Length: 7\r\n\r\n", true))
    }

    @Test func statusesWithoutContentHaveNoLengthAndNoBody() {
        for status in [100, 101, 204, 304] {
            #expect(end(keptAlive, status: status, length: 5) == ("\r\n", false))
            #expect(end(closing, status: status, head: true, length: 5, declared: "5") == ("Connection: close\r\n\r\n", false))
            #expect(end(keptAlive10, status: status) == ("Connection: keep-alive\r\n\r\n", false))
        }
        #expect(end(keptAlive, status: 205) == ("Content-Length: 5\r\n\r\n", true))
        #expect(end(keptAlive, status: 404, length: 9) == ("Content-Length: 9\r\n\r\n", true))
    }

    /// A stored answer's head as the connection completes it: the handler's status line and
    /// fields, the request id, `Date`, then the framing.
    @Test func aWholeStoredHead() {
        var head: [UInt8] = []
        ResponseHeadWriter.appendStatusLine(200, to: &head)
        ResponseHeadWriter.appendField("Content-Type", "application/json", to: &head)
        ResponseHeadWriter.appendField("X-Request-ID", "abc", to: &head)
        ResponseHeadWriter.appendField("Date", "Sun, 06 Nov 1994 08:49:37 GMT", to: &head)
        let sendsBody = keptAlive10.appendEnd(status: 200, isHeadRequest: false, bodyLength: 17, to: &head)
        #expect(sendsBody)
        #expect(
            String(decoding: head, as: UTF8.self)
                == "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Request-ID: abc\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
                + "Content-Length: 17\r\nConnection: keep-alive\r\n\r\n")
    }

    /// A routed answer to HEAD whose handler declared the GET's length, while draining.
    @Test func aWholeRoutedHeadAnswer() {
        var head: [UInt8] = []
        ResponseHeadWriter.appendStatusLine(200, to: &head)
        ResponseHeadWriter.appendField("ETag", "\"v1\"", to: &head)
        let sendsBody = closing.appendEnd(status: 200, isHeadRequest: true, bodyLength: 0, headContentLength: "52011", to: &head)
        #expect(!sendsBody)
        #expect(
            String(decoding: head, as: UTF8.self)
                == "HTTP/1.1 200 OK\r\nETag: \"v1\"\r\nContent-Length: 52011\r\nConnection: close\r\n\r\n")
    }
}
