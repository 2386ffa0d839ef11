import HTTPCodec
import Testing

/// HTTP/2 requests as the HTTP/1.1 messages the decoder reads: pseudo-header fields become the
/// request line and `host`, `content-length` is the body's, and the header list is counted as
/// RFC 9113 counts it.
@Suite struct HTTP2RequestAssemblyTests {
    static func assembled(_ fields: [(String, String)], limit: Int = 16_384) -> HTTP2RequestAssembly {
        var assembly = HTTP2RequestAssembly(maxHeaderListSize: limit)
        for (name, value) in fields {
            Array(name.utf8).withUnsafeBytes { name in
                Array(value.utf8).withUnsafeBytes { value in assembly.add(name: name, value: value) }
            }
        }
        return assembly
    }

    @Test func aGetBecomesARequestLineAndHost() {
        let assembly = Self.assembled([
            (":method", "GET"), (":scheme", "https"), (":authority", "api.example.com"), (":path", "/v1/products?page=2"),
            ("accept-language", "ko-KR"), ("x-request-id", "r-1"), ("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"),
        ])
        #expect(String(decoding: assembly.message(body: []), as: UTF8.self)
                == "GET /v1/products?page=2 HTTP/1.1\r\nhost: api.example.com\r\naccept-language: ko-KR\r\nx-request-id: r-1\r\ntraceparent: 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\r\n\r\n")
        #expect(assembly.requestID == Array("r-1".utf8))
        #expect(assembly.traceparent?.count == 55)
        // Each field: name + value + 32 (RFC 9113 §6.5.2).
        #expect(assembly.headerListSize == 7 + 3 + 32 + 7 + 5 + 32 + 10 + 15 + 32 + 5 + 19 + 32 + 15 + 5 + 32 + 12 + 3 + 32 + 11 + 55 + 32)
    }

    @Test func theBodysLengthReplacesTheDeclaredOneAndHostIsKept() {
        let assembly = Self.assembled([
            (":method", "POST"), (":authority", "a.example"), (":path", "/v1/products"), ("host", "b.example"), ("content-length", "3"),
            ("content-type", "application/json"),
        ])
        #expect(assembly.declaredContentLength == 3)
        #expect(String(decoding: assembly.message(body: Array("{}\n".utf8)), as: UTF8.self)
                == "POST /v1/products HTTP/1.1\r\nhost: b.example\r\ncontent-type: application/json\r\ncontent-length: 3\r\n\r\n{}\n")
        #expect(Self.assembled([("content-length", "1e3")]).declaredContentLength == nil)
    }

    @Test func pastTheLimitFieldsAreCountedNotKept() {
        let big = String(repeating: "a", count: 100)
        let assembly = Self.assembled([(":method", "GET"), (":path", "/"), ("x-big", big), ("x-after", "kept?")], limit: 150)
        #expect(assembly.isOverLimit)
        #expect(assembly.headerListSize == (7 + 3 + 32) + (5 + 1 + 32) + (5 + 100 + 32) + (7 + 5 + 32))
        #expect(!String(decoding: assembly.message(body: []), as: UTF8.self).contains("x-after"))
    }

    /// The assembled bytes go through the same decoder as HTTP/1.1, limits included.
    @Test func theDecoderJudgesTheAssembledRequest() {
        let long = "/" + String(repeating: "p", count: 300)
        var bytes = Self.assembled([(":method", "GET"), (":authority", "x"), (":path", long)]).message(body: [])
        var decoder = RequestDecoder(limits: RequestLimits(maxTargetBytes: 256))
        guard case .failure(let error) = bytes.withUnsafeMutableBytes({ decoder.decode($0) }) else {
            Issue.record("a long :path must fail"); return
        }
        #expect(error.status == 414)
        var plain = Self.assembled([(":method", "GET"), (":authority", "x"), (":path", "/ok")]).message(body: [])
        var fresh = RequestDecoder()
        guard case .complete(let message) = plain.withUnsafeMutableBytes({ fresh.decode($0) }) else {
            Issue.record("a plain GET must decode"); return
        }
        #expect(message.body.isEmpty)
    }

    // MARK: - Read directly, held to the decoder

    /// The verdict of reading `fields` (and `body`) directly, and the decoder's on the
    /// HTTP/1.1 message they mean, as text: equal when the two readings agree.
    static func readings(_ fields: [(String, String)], body: String = "", limits: RequestLimits) -> (direct: String, decoded: String) {
        var assembly = assembled(fields)
        let bodyBytes = Array(body.utf8)
        var message = assembly.message(body: bodyBytes)
        var decoder = RequestDecoder(limits: limits)
        var oracle = message.withUnsafeMutableBytes { decoder.decode($0) }
        if case .head = oracle { oracle = message.withUnsafeMutableBytes { decoder.decode($0) } }
        bodyBytes.withUnsafeBytes { assembly.appendBody($0) }
        let direct = assembly.request(limits: limits)
        return (assembly.bytes.withUnsafeBytes { direct.summary(in: $0) }, message.withUnsafeBytes { oracle.summary(in: $0) })
    }

    @Test func aRequestReadDirectlyIsTheRequestItsMessageDecodesTo() {
        let limits = RequestLimits(maxBodyBytes: 100, maxUploadBytes: 1000, uploadRoutes: [UploadRoute(method: "POST", path: "/v1/products")])
        let cases: [([(String, String)], String)] = [
            ([(":method", "GET"), (":scheme", "https"), (":authority", "api.example.com"), (":path", "/v1/products?page=2&q=a%20b"), ("accept", "*/*")], ""),
            ([(":method", "POST"), (":authority", "a.example"), (":path", "/v1/products"), ("content-type", "application/json")], String(repeating: "x", count: 500)),
            ([(":method", "POST"), (":authority", "a.example"), (":path", "/v1/other")], String(repeating: "x", count: 500)),
            ([(":method", "HEAD"), (":authority", "a.example"), (":path", "/")], "body"),
            ([(":method", "GET"), (":path", "/")], ""),
            ([(":method", "GET"), (":authority", "a b"), (":path", "/")], ""),
            ([(":method", "GET"), (":authority", "a"), ("host", "b"), ("host", "c"), (":path", "/")], ""),
            ([(":method", "OPTIONS"), (":authority", "a"), (":path", "*")], ""),
            ([(":method", "GET"), (":authority", "a"), (":path", "*")], ""),
            ([(":method", "CONNECT"), (":authority", "a.example:443")], ""),
            ([(":method", "GET"), (":authority", "a"), (":path", "/x#y")], ""),
            ([(":method", "PUT"), (":authority", "a"), (":path", "/x"), ("expect", "100-continue")], "{}"),
            ([(":method", "PUT"), (":authority", "a"), (":path", "/x"), ("expect", "something")], ""),
            ([(":method", "GET"), (":authority", "a"), (":path", "/"), ("x-a", "one two"), ("x-b", "\u{7f}")], ""),
            ([(":method", "GET"), (":authority", "a"), (":path", "/"), ("x-a", "caf\u{e9}")], ""),
        ]
        for (fields, body) in cases {
            let (direct, decoded) = Self.readings(fields, body: body, limits: limits)
            #expect(direct == decoded)
        }
    }

    /// Every request-line length and field count around the limits, under limits of each
    /// shape (the head limit above the target's allowance, between, below the target limit),
    /// with a short method and a long one (whose request line passes the allowance before its
    /// target passes the target limit), and with a last field that is invalid or not (which
    /// error comes first).
    @Test func theLimitsBiteAtTheSameByteAsTheDecoders() {
        let shapes = [
            RequestLimits(maxHeadBytes: 400, maxTargetBytes: 100, maxFieldCount: 5),
            RequestLimits(maxHeadBytes: 150, maxTargetBytes: 100, maxFieldCount: 5),
            RequestLimits(maxHeadBytes: 90, maxTargetBytes: 100, maxFieldCount: 5),
        ]
        var compared = 0
        for limits in shapes {
            for method in ["GET", String(repeating: "M", count: 70)] {
                for pathLength in 1...220 {
                    for fieldCount in 0...6 {
                        for invalidLast in [false, true] {
                            var fields = [(":method", method), (":authority", "h"), (":path", "/" + String(repeating: "p", count: pathLength - 1))]
                            for index in 0..<fieldCount { fields.append(("x-\(index)", String(repeating: "v", count: 7))) }
                            if invalidLast { fields.append(("x-bad", "bad\u{1}")) }
                            let (direct, decoded) = Self.readings(fields, limits: limits)
                            #expect(direct == decoded, "\(method.count)-byte method, path \(pathLength), \(fieldCount) fields, invalid last: \(invalidLast)")
                            compared += 1
                        }
                    }
                }
            }
        }
        #expect(compared == 3 * 2 * 220 * 7 * 2)
    }

    /// A head read before its body (a stream whose HEADERS did not end it) has the route's
    /// body limit and no content-length; the whole request then has the body's.
    @Test func theHeadComesFirstWithTheRoutesBodyLimit() {
        let limits = RequestLimits(maxBodyBytes: 10, maxUploadBytes: 99, uploadRoutes: [UploadRoute(method: "POST", path: "/up")])
        var assembly = Self.assembled([(":method", "POST"), (":authority", "a"), (":path", "/up"), ("content-length", "5")])
        guard case .head(let head) = assembly.head(limits: limits) else { Issue.record("a head"); return }
        #expect(head.maxBodyBytes == 99)
        #expect(head.contentLength == nil)
        Array("hello".utf8).withUnsafeBytes { assembly.appendBody($0) }
        guard case .complete(let message) = assembly.request(limits: limits) else { Issue.record("a request"); return }
        #expect(message.head.contentLength == 5)
        assembly.bytes.withUnsafeBytes { bytes in
            #expect(message.body.string(in: bytes) == "hello")
            #expect(message.head.fields.map { "\($0.name.string(in: bytes))=\($0.value.string(in: bytes))" } == ["host=a", "content-length=5"])
        }
    }
}
