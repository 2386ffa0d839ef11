import HTTPCodec
@testable import HTTPInterface
import Testing

/// A stored answer's fields in both wire forms: HTTP/1.1 lines, and the HTTP/2 pairs the
/// transport hands to nghttp2 without parsing them.
@Suite struct StoredFieldsTests {
    /// The pairs of `bytes` as (name, value) strings.
    static func pairs(_ bytes: [UInt8]) -> [String] {
        var fields: [String] = []
        HTTP2FieldPairs.forEach(in: bytes) { name, value in
            fields.append(String(decoding: bytes[name], as: UTF8.self) + "=" + String(decoding: bytes[value], as: UTF8.self))
        }
        return fields
    }

    @Test func fieldsAreLaidOutOnceInBothForms() {
        let fields = StoredFields(status: 200, fields: [
            ("ETag", "\"abc\""), ("Content-Type", "application/json"), ("Connection", "close"), ("Content-Length", "12"),
            ("Transfer-Encoding", "chunked"), ("Vary", "Accept-Encoding, Accept-Language"),
        ])
        #expect(String(decoding: fields.http1, as: UTF8.self) == """
            HTTP/1.1 200 OK\r\nETag: "abc"\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: 12\r\n\
            Transfer-Encoding: chunked\r\nVary: Accept-Encoding, Accept-Language\r\n
            """)
        // Lowercase names; connection-specific fields and content-length left out.
        #expect(Self.pairs(fields.http2) == ["etag=\"abc\"", "content-type=application/json", "vary=Accept-Encoding, Accept-Language"])
        // Two bytes of name length, two of value length (big endian), name, value.
        #expect(Array(fields.http2.prefix(13)) == [0, 4, 0, 5] + Array("etag\"abc\"".utf8))
        #expect(fields.byteCount == fields.http1.count + fields.http2.count)
    }

    /// Fields written per request (`beginField`…`endField`) come out in the answer's form,
    /// with the value's length patched into its pair.
    @Test func perRequestFieldsTakeTheAnswersForm() {
        func write(_ form: StoredFieldForm) -> [UInt8] {
            var answer = StoredAnswer(head: [], filesAllowed: false, form: form)
            answer.append(StoredFields(fields: [("Cache-Status", "gateway; hit")]))
            answer.beginField(StoredFieldName("Cache-Control"))
            answer.appendValue(Array("public, max-age=".utf8))
            answer.appendValueDecimal(300)
            answer.endField()
            answer.beginField(StoredFieldName("X-Empty"))
            answer.endField()
            let policy = StoredFields(fields: [("RateLimit-Policy", "\"reads\";q=600;w=60")])
            let limits = RateLimitFields(
                policyName: "reads", policyValue: "\"reads\";q=600;w=60", policyField: policy, rateValuePrefix: Array("\"reads\";r=".utf8),
                allowed: true, remaining: 12, resetSeconds: 1, retryAfterSeconds: 0)
            limits.append(to: &answer)
            return answer.head
        }
        #expect(String(decoding: write(.http1), as: UTF8.self) == """
            Cache-Status: gateway; hit\r\nCache-Control: public, max-age=300\r\nX-Empty: \r\n\
            RateLimit-Policy: "reads";q=600;w=60\r\nRateLimit: "reads";r=12;t=1\r\n
            """)
        #expect(Self.pairs(write(.http2)) == [
            "cache-status=gateway; hit", "cache-control=public, max-age=300", "x-empty=", "ratelimit-policy=\"reads\";q=600;w=60",
            "ratelimit=\"reads\";r=12;t=1",
        ])
    }

    /// The request id: the client's when acceptable, else a new one; its range in the head
    /// holds exactly the id in both forms.
    @Test func theRequestIDFieldInBothForms() throws {
        var decoder = RequestDecoder()
        var buffer = Array("GET / HTTP/1.1\r\nHost: x\r\nX-Request-ID: abc-123\r\n\r\n".utf8)
        let heads: [(StoredFieldForm, [UInt8], Range<Int>)] = buffer.withUnsafeMutableBytes { bytes in
            guard case .complete(let message) = decoder.decode(bytes) else { return [] }
            let request = RequestBytes(buffer: UnsafeRawBufferPointer(bytes), head: message.head)
            return [StoredFieldForm.http1, .http2].map { form in
                var answer = StoredAnswer(head: [], filesAllowed: false, form: form)
                let range = answer.appendRequestID(for: request)
                return (form, answer.head, range)
            }
        }
        try #require(heads.count == 2)
        #expect(String(decoding: heads[0].1, as: UTF8.self) == "X-Request-ID: abc-123\r\n")
        #expect(String(decoding: heads[0].1[heads[0].2], as: UTF8.self) == "abc-123")
        #expect(Self.pairs(heads[1].1) == ["x-request-id=abc-123"])
        #expect(String(decoding: heads[1].1[heads[1].2], as: UTF8.self) == "abc-123")
    }

    /// A truncated pair ends the walk instead of reading past the bytes.
    @Test func aTruncatedPairEndsTheWalk() {
        var bytes = StoredFields(fields: [("A", "1"), ("B", "2")]).http2
        bytes.removeLast()
        #expect(Self.pairs(bytes) == ["a=1"])
    }
}
