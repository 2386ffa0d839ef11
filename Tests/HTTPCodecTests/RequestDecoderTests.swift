import HTTPCodec
import Testing

@Suite struct RequestDecoderTests {
    @Test func readsASimpleGet() {
        let stream = DecodedStream("GET /v1/products?page=2&x=%20 HTTP/1.1\r\nHost: gw.example\r\nAccept:  */* \r\n\r\n")
        #expect(stream.end == .clean)
        #expect(stream.requests == [
            Decoded(
                method: "GET", target: "/v1/products?page=2&x=%20", path: "/v1/products", query: "page=2&x=%20",
                minorVersion: 1, fields: ["host: gw.example", "accept: */*"], body: [], keepAlive: true)
        ])
    }

    @Test func readsContentLengthAndChunkedBodies() {
        let stream = DecodedStream(
            "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
                + "PUT /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;name=value;q=\"a \\\"b\"\r\nhello\r\n6 ; ext\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n")
        #expect(stream.end == .clean)
        #expect(stream.requests.map(\.method) == ["POST", "PUT"])
        #expect(stream.requests.map { String(decoding: $0.body, as: UTF8.self) } == ["hello", "hello world"])
        #expect(stream.requests[1].fields == ["host: x", "transfer-encoding: chunked"])
    }

    @Test func reportsTheHeadBeforeTheBody() {
        var decoder = RequestDecoder()
        var buffer = Array("POST /a HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n".utf8)
        guard case .head(let head) = buffer.withUnsafeMutableBytes({ decoder.decode($0) }) else {
            Issue.record("no head")
            return
        }
        #expect(head.expectsContinue)
        #expect(head.contentLength == 3)
        #expect(!head.hasUnsupportedExpectation)
        guard case .needMore = buffer.withUnsafeMutableBytes({ decoder.decode($0) }) else {
            Issue.record("body read before it came")
            return
        }
        buffer += Array("abc".utf8)
        guard case .complete(let message) = buffer.withUnsafeMutableBytes({ decoder.decode($0) }) else {
            Issue.record("no message")
            return
        }
        #expect(message.length == buffer.count)
        #expect(Array(buffer[message.body.lowerBound..<message.body.upperBound]) == Array("abc".utf8))
    }

    @Test func keepAliveFollowsVersionAndConnection() {
        let cases: [(String, Bool)] = [
            ("GET / HTTP/1.1\r\nHost: x\r\n\r\n", true),
            ("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", false),
            ("GET / HTTP/1.1\r\nHost: x\r\nConnection: upgrade, Close\r\n\r\n", false),
            ("GET / HTTP/1.0\r\n\r\n", false),
            ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true),
            ("GET / HTTP/1.0\r\nHost: x\r\nConnection: Keep-Alive, close\r\n\r\n", false),
        ]
        for (request, keepAlive) in cases {
            #expect(DecodedStream(request).requests.map(\.keepAlive) == [keepAlive], "\(request)")
        }
    }

    @Test func acceptsValidShapes() {
        let absolute = DecodedStream("GET http://gw.example:8080/v1/products?page=1 HTTP/1.1\r\nHost: gw.example:8080\r\n\r\n")
        #expect(absolute.requests.map(\.path) == ["/v1/products"])
        #expect(absolute.requests.map(\.query) == ["page=1"])
        let noPath = DecodedStream("GET https://gw.example HTTP/1.1\r\nHost: gw.example\r\n\r\n")
        #expect(noPath.requests.map(\.path) == [""])
        let asterisk = DecodedStream("OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(asterisk.requests.map(\.path) == ["*"])
        let connect = DecodedStream("CONNECT gw.example:443 HTTP/1.1\r\nHost: gw.example:443\r\n\r\n")
        #expect(connect.requests.map(\.path) == ["gw.example:443"])
        let unknownMethod = DecodedStream("QUERY /v1/products HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(unknownMethod.requests.map(\.method) == ["QUERY"])
        let leadingEmptyLines = DecodedStream("\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(leadingEmptyLines.requests.count == 1)
        let higherMinor = DecodedStream("GET / HTTP/1.7\r\nHost: x\r\n\r\n")
        #expect(higherMinor.requests.map(\.minorVersion) == [1])
        let obsText = DecodedStream("GET / HTTP/1.1\r\nHost: x\r\nX-Name: caf\u{e9}\r\nX-Tab: a\tb\r\nX-Empty:\r\n\r\n")
        #expect(obsText.requests.first?.fields == ["host: x", "x-name: café", "x-tab: a\tb", "x-empty: "])
        let zeroLengthHead = DecodedStream("HEAD / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        #expect(zeroLengthHead.end == .clean)
        let http10 = DecodedStream("POST / HTTP/1.0\r\nContent-Length: 2\r\n\r\nok")
        #expect(http10.requests.map(\.body) == [Array("ok".utf8)])
        let ipv6Host = DecodedStream("GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n")
        #expect(ipv6Host.end == .clean && ipv6Host.requests.count == 1)
        let unsupportedExpect = DecodedStream("GET / HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n")
        #expect(unsupportedExpect.requests.count == 1)
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let name: String
        let request: String
        let error: RequestError
        var testDescription: String { name }
        init(_ name: String, _ request: String, _ error: RequestError) {
            self.name = name
            self.request = request
            self.error = error
        }
    }

    static let refusals: [Refusal] = [
        Refusal("TE with CL", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", .transferEncodingWithContentLength),
        Refusal("CL with TE", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", .transferEncodingWithContentLength),
        Refusal("duplicate CL", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", .duplicateContentLength),
        Refusal("list CL", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3, 3\r\n\r\nabc", .invalidContentLength),
        Refusal("signed CL", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +3\r\n\r\nabc", .invalidContentLength),
        Refusal("negative CL", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -3\r\n\r\n", .invalidContentLength),
        Refusal("hex CL", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0x3\r\n\r\nabc", .invalidContentLength),
        Refusal("empty CL", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length:\r\n\r\n", .invalidContentLength),
        Refusal("overflowing CL", "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 9223372036854775808\r\n\r\n", .invalidContentLength),
        Refusal("TE not ending in chunked", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", .invalidTransferEncoding),
        Refusal("TE chunked twice", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", .invalidTransferEncoding),
        Refusal("TE unknown coding", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .unsupportedTransferCoding),
        Refusal("TE identity", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\n", .invalidTransferEncoding),
        Refusal("TE empty", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\r\n\r\n", .invalidTransferEncoding),
        Refusal("TE on HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .invalidTransferEncoding),
        Refusal("obs-fold", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n", .foldedLine),
        Refusal("space after request line", "GET / HTTP/1.1\r\n Host: x\r\n\r\n", .foldedLine),
        Refusal("bare LF in head", "GET / HTTP/1.1\nHost: x\r\n\r\n", .bareLineFeed),
        Refusal("bare LF ending head", "GET / HTTP/1.1\r\nHost: x\n\n", .bareLineFeed),
        Refusal("bare CR", "GET / HTTP/1.1\r\nHost: x\rX: y\r\n\r\n", .bareCarriageReturn),
        Refusal("NUL in value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n", .invalidFieldValue(0)),
        Refusal("DEL in value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u{7F}\r\n\r\n", .invalidFieldValue(0x7F)),
        Refusal("control in value", "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\u{1}\r\n\r\n", .invalidFieldValue(1)),
        Refusal("NUL in name", "GET / HTTP/1.1\r\nHost: x\r\nX\u{0}A: a\r\n\r\n", .invalidFieldName),
        Refusal("space before colon", "GET / HTTP/1.1\r\nHost: x\r\nContent-Length : 0\r\n\r\n", .spaceBeforeColon),
        Refusal("tab before colon", "GET / HTTP/1.1\r\nHost\t: x\r\n\r\n", .spaceBeforeColon),
        Refusal("name not a token", "GET / HTTP/1.1\r\nHost: x\r\nFo(o: a\r\n\r\n", .invalidFieldName),
        Refusal("empty name", "GET / HTTP/1.1\r\nHost: x\r\n: a\r\n\r\n", .invalidFieldName),
        Refusal("no colon", "GET / HTTP/1.1\r\nHost: x\r\nX-A\r\n\r\n", .invalidFieldName),
        Refusal("no Host", "GET / HTTP/1.1\r\n\r\n", .missingHost),
        Refusal("two Hosts", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", .duplicateHost),
        Refusal("two Hosts on 1.0", "GET / HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n", .duplicateHost),
        Refusal("Host with a path", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", .invalidHost),
        Refusal("Host with userinfo", "GET / HTTP/1.1\r\nHost: u@a\r\n\r\n", .invalidHost),
        Refusal("negative chunk size", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        Refusal("plus chunk size", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n+5\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        Refusal("0x chunk size", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        Refusal("17 hex digits", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n00000000000000005\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        Refusal("empty chunk size", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        Refusal("trailing space after chunk size", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        Refusal("TE with an empty element", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked,\r\n\r\n0\r\n\r\n", .invalidTransferEncoding),
        Refusal("target without a slash", "GET products HTTP/1.1\r\nHost: x\r\n\r\n", .invalidTarget),
        Refusal("asterisk with GET", "GET * HTTP/1.1\r\nHost: x\r\n\r\n", .invalidTarget),
        Refusal("absolute-form without a host", "GET http:///a HTTP/1.1\r\nHost: x\r\n\r\n", .invalidTarget),
        Refusal("bad chunk extension", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;=x\r\nhello\r\n0\r\n\r\n", .invalidChunkSize),
        Refusal("bare LF after chunk size", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n", .bareLineFeed),
        Refusal("no CRLF after chunk data", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n0\r\n\r\n", .missingChunkTerminator),
        Refusal("LF only after chunk data", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\n0\r\n\r\n", .missingChunkTerminator),
        Refusal("bad trailer", "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX : y\r\n\r\n", .invalidTrailer),
        Refusal("space in target", "GET /a b HTTP/1.1\r\nHost: x\r\n\r\n", .invalidTarget),
        Refusal("control byte in target", "GET /a\u{1}b HTTP/1.1\r\nHost: x\r\n\r\n", .invalidTarget),
        Refusal("fragment in target", "GET /a#b HTTP/1.1\r\nHost: x\r\n\r\n", .invalidTarget),
        Refusal("non-ASCII target", "GET /caf\u{e9} HTTP/1.1\r\nHost: x\r\n\r\n", .invalidTarget),
        Refusal("HTTP/2.0", "GET / HTTP/2.0\r\nHost: x\r\n\r\n", .unsupportedVersion),
        Refusal("HTTP/0.9 line", "GET /\r\n\r\n", .malformedRequestLine),
        Refusal("lowercase version", "GET / http/1.1\r\nHost: x\r\n\r\n", .malformedVersion),
        Refusal("trailing space", "GET / HTTP/1.1 \r\nHost: x\r\n\r\n", .malformedVersion),
        Refusal("method not a token", "G(T / HTTP/1.1\r\nHost: x\r\n\r\n", .invalidMethod),
        Refusal("HEAD with a body", "HEAD / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nabcd", .bodyNotAllowed),
        Refusal("TRACE chunked", "TRACE / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .bodyNotAllowed),
    ]

    @Test(arguments: refusals)
    func refuses(_ refusal: Refusal) {
        let whole = DecodedStream(refusal.request)
        #expect(whole.failure == refusal.error)
        #expect(whole.requests.isEmpty)
        let byteAtATime = DecodedStream(refusal.request, pieces: [1])
        #expect(byteAtATime.failure == refusal.error)
    }

    /// Upload routes take the larger body limit: the method and the path as sent (or a path
    /// under it), compared byte for byte; everything else keeps the ordinary one.
    @Test func uploadRoutesTakeTheLargerBodyLimit() {
        let limits = RequestLimits(
            maxBodyBytes: 10, maxUploadBytes: 20,
            uploadRoutes: [UploadRoute(method: "POST", path: "/v1/products"), UploadRoute(method: "PATCH", path: "/v1/products", oneSegmentUnder: true)])
        func outcome(_ method: String, _ target: String, length: Int) -> RequestError? {
            let request = "\(method) \(target) HTTP/1.1\r\nHost: x\r\nContent-Length: \(length)\r\n\r\n" + String(repeating: "a", count: length)
            let stream = DecodedStream(request, limits: limits)
            switch stream.end {
            case .failure(let error): return error
            case .clean: return stream.requests.count == 1 ? nil : .invalidChunkSize
            case .incomplete: return .headTooLarge  // never expected: every request here is complete
            }
        }
        #expect(outcome("POST", "/v1/products", length: 20) == nil)
        #expect(outcome("POST", "/v1/products?x=1", length: 20) == nil)
        #expect(outcome("PATCH", "/v1/products/7", length: 20) == nil)
        #expect(outcome("POST", "/v1/products", length: 21) == .bodyTooLarge)
        for (method, target) in [
            ("PUT", "/v1/products"), ("POST", "/v1/productsX"), ("POST", "/v1/%70roducts"), ("post", "/v1/products"), ("DELETE", "/v1/products/7"),
            ("POST", "/v1"), ("POST", "/v1/products/7"), ("PATCH", "/v1/products"), ("PATCH", "/v1/products/"), ("PATCH", "/v1/products/7/x"),
            ("PATCH", "/v1/products/."), ("PATCH", "/v1/products/.."),
        ] {
            #expect(outcome(method, target, length: 11) == .bodyTooLarge, "\(method) \(target)")
            #expect(outcome(method, target, length: 10) == nil, "\(method) \(target)")
        }
        let chunked = "POST /v1/products HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(DecodedStream(chunked + "f\r\n0123456789abcde\r\n5\r\n01234\r\n0\r\n\r\n", limits: limits).requests.count == 1)
        #expect(DecodedStream(chunked + "f\r\n0123456789abcde\r\n6\r\n012345\r\n0\r\n\r\n", limits: limits).failure == .bodyTooLarge)
    }

    @Test func statusesFitTheErrors() {
        #expect(RequestError.unsupportedVersion.status == 505)
        #expect(RequestError.unsupportedTransferCoding.status == 501)
        #expect(RequestError.bodyTooLarge.status == 413)
        #expect(RequestError.targetTooLong.status == 414)
        #expect(RequestError.headTooLarge.status == 431)
        #expect(RequestError.invalidChunkSize.status == 400)
    }

    @Test func enforcesTheLimits() {
        let limits = RequestLimits(maxHeadBytes: 200, maxTargetBytes: 50, maxFieldCount: 3, maxBodyBytes: 10)
        let longTarget = "GET /" + String(repeating: "a", count: 60) + " HTTP/1.1\r\nHost: x\r\n\r\n"
        #expect(DecodedStream(longTarget, limits: limits).failure == .targetTooLong)
        let endlessTarget = "GET /" + String(repeating: "a", count: 300)
        #expect(DecodedStream(endlessTarget, limits: limits).failure == .targetTooLong)
        let bigHead = "GET / HTTP/1.1\r\nHost: x\r\nX-A: " + String(repeating: "a", count: 300) + "\r\n\r\n"
        #expect(DecodedStream(bigHead, limits: limits).failure == .headTooLarge)
        #expect(DecodedStream(String(bigHead.dropLast(4)), limits: limits).failure == .headTooLarge)
        let manyFields = "GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n"
        #expect(DecodedStream(manyFields, limits: limits).failure == .headTooLarge)
        let bigBody = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n"
        #expect(DecodedStream(bigBody, limits: limits).failure == .bodyTooLarge)
        let atLimit = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789"
        #expect(DecodedStream(atLimit, limits: limits).requests.count == 1)
        let bigChunks = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n012345\r\n5\r\n01234\r\n0\r\n\r\n"
        #expect(DecodedStream(bigChunks, limits: limits).failure == .bodyTooLarge)
        let hugeChunk = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffff\r\n"
        #expect(DecodedStream(hugeChunk, limits: limits).failure == .bodyTooLarge)
        let bigTrailers = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: " + String(repeating: "t", count: 300) + "\r\n\r\n"
        #expect(DecodedStream(bigTrailers, limits: limits).failure == .headTooLarge)
        let endlessEmptyLines = String(repeating: "\r\n", count: 200)
        #expect(DecodedStream(endlessEmptyLines, limits: limits).failure == .headTooLarge)
    }

    @Test func keepsTheFieldsReadBeforeAFailure() {
        var decoder = RequestDecoder()
        var buffer = Array("POST / HTTP/1.1\r\nHost: x\r\nX-Request-ID: smug-1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n".utf8)
        guard case .failure(.duplicateContentLength) = buffer.withUnsafeMutableBytes({ decoder.decode($0) }) else {
            Issue.record("not refused")
            return
        }
        let id = buffer.withUnsafeBytes { bytes in decoder.head.value(of: "x-request-id", in: bytes)?.string(in: bytes) }
        #expect(id == "smug-1")
    }

    @Test func incompleteStreamsWaitForMore() {
        #expect(DecodedStream("GET / HTTP/1.1\r\nHost: x\r\n").end == .incomplete)
        #expect(DecodedStream("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhel").end == .incomplete)
        #expect(DecodedStream("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n").end == .incomplete)
        #expect(DecodedStream("GET / HTTP/1.1\r\nHost: x\r\n\r\n\r").end == .incomplete)
    }

    /// The same pipelined stream, split at every byte boundary and in random pieces, gives
    /// the same requests.
    @Test func anySplitGivesTheSameRequests() {
        let stream = Array((
            "\r\nGET /a?x=1 HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n"
                + "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n\r\n\u{0}body"
                + "PATCH /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;a=b\r\nab\n\r\n10\r\n0123456789abcdef\r\n0\r\nT: v\r\n\r\n"
                + "DELETE /d HTTP/1.0\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\n{}"
                + "GET /e HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").utf8)
        let whole = DecodedStream(stream)
        #expect(whole.end == .clean)
        #expect(whole.requests.map(\.method) == ["GET", "POST", "PATCH", "DELETE", "GET"])
        #expect(whole.requests.map(\.body.count) == [0, 7, 19, 2, 0])
        #expect(whole.requests[2].body == Array("ab\n0123456789abcdef".utf8))
        for split in 1..<stream.count {
            let halves = DecodedStream(stream, pieces: [split, stream.count])
            #expect(halves == whole, "split at \(split)")
        }
        #expect(DecodedStream(stream, pieces: [1]) == whole)
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<300 {
            let pieces = (0..<40).map { _ in Int(generator.next() % 24) + 1 }
            #expect(DecodedStream(stream, pieces: pieces) == whole, "pieces \(pieces)")
        }
    }
}

/// A small deterministic generator for reproducible random splits.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
