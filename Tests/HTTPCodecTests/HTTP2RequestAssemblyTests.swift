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
}
