import CNghttp2
import HTTPInterface
import Testing

@testable import Transport

/// The answer's fields as nghttp2 gets them: lowercase, connection-specific ones left out, and
/// the fields whose value is new on every answer never indexed unless asked.
@Suite struct HTTP2HeaderBlockTests {
    static func pairs(_ block: inout HTTP2HeaderBlock, indexingUnique: Bool) -> [String] {
        block.withNameValues(indexingUnique: indexingUnique) { nvs, count in
            (0..<count).map { index in
                let nv = nvs[index]
                let name = String(decoding: UnsafeBufferPointer(start: nv.name, count: nv.namelen), as: UTF8.self)
                let value = String(decoding: UnsafeBufferPointer(start: nv.value, count: nv.valuelen), as: UTF8.self)
                let never = nv.flags == UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
                return "\(name)=\(value)\(never ? " (never indexed)" : "")"
            }
        }
    }

    @Test func uniqueFieldsAreNeverIndexedUnlessAsked() {
        var block = HTTP2HeaderBlock()
        block.start(status: 200)
        block.add(name: "Content-Type".utf8, value: "application/json".utf8)
        block.add(name: "X-Request-ID".utf8, value: "r-1".utf8)
        block.add(name: "Connection".utf8, value: "close".utf8)
        block.add(name: "RateLimit".utf8, value: "limit=10, remaining=9, reset=1".utf8)
        block.add(name: "RateLimit-Policy".utf8, value: "10;w=1".utf8)
        #expect(Self.pairs(&block, indexingUnique: false) == [
            ":status=200", "content-type=application/json", "x-request-id=r-1 (never indexed)",
            "ratelimit=limit=10, remaining=9, reset=1 (never indexed)", "ratelimit-policy=10;w=1",
        ])
        #expect(Self.pairs(&block, indexingUnique: true) == [
            ":status=200", "content-type=application/json", "x-request-id=r-1", "ratelimit=limit=10, remaining=9, reset=1",
            "ratelimit-policy=10;w=1",
        ])
    }

    @Test func storedPairsAreMarkedTheSameWay() {
        var pairs: [UInt8] = []
        HTTP2FieldPairs.append(name: "x-request-id", value: "r-2", to: &pairs)
        HTTP2FieldPairs.append(name: "vary", value: "Accept", to: &pairs)
        var block = HTTP2HeaderBlock()
        block.start(status: 304)
        block.add(pairs: pairs)
        #expect(Self.pairs(&block, indexingUnique: false) == [":status=304", "x-request-id=r-2 (never indexed)", "vary=Accept"])
    }
}
