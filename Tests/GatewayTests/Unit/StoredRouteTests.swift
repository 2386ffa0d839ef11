@testable import Gateway
import HTTPCodec
@testable import HTTPInterface
@testable import Routing
import GatewayModels
import Testing

@Suite struct StoredRouteTests {
    /// The parameter a stored answer of `pattern` would get for `path`, or nil when the
    /// path does not come to the stored answer (the ordinary route judges it).
    private func match(_ pattern: String, _ path: String) -> String? {
        var router = Router()
        router.add(.get, pattern, stored: { _, _, _ in false }, .immediate { _, _ in GatewayResponse(status: 200) })
        return Array(path.utf8).withUnsafeBytes { bytes in
            let classification = router.classify(method: .get, path: bytes)
            guard classification.outcome == .found else { return nil }
            return String(decoding: bytes[classification.parameter], as: UTF8.self)
        }
    }

    @Test func matchesLiteralsAndOneParameterByteForByte() {
        #expect(match("/healthz", "/healthz") == "")
        #expect(match("/v1/products", "/v1/products") == "")
        #expect(match("/v1/products/{id}", "/v1/products/42") == "42")
        #expect(match("/v1/products/{id}", "/v1/products") == nil)
        #expect(match("/v1/products", "/v1/products/42") == nil)
        #expect(match("/v1/products", "/v1/Products") == nil)
        #expect(match("/v1/products", "/v1/products/") == nil)
        #expect(match("/v1/products", "/v1//products") == nil)
    }

    @Test func leavesWhatNeedsDecodingToTheOrdinaryRoute() {
        #expect(match("/v1/products/{id}", "/v1/products/%34%32") == nil)
        #expect(match("/v1/products/{id}", "/v1/products/..") == nil)
        #expect(match("/v1/products/{id}", "/v1/products/.") == nil)
    }

    @Test func queryValuesThatNeedNoDecoding() {
        func value(_ target: String, _ name: StaticString) -> String {
            var decoder = RequestDecoder()
            var buffer = Array("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
            return buffer.withUnsafeMutableBytes { bytes in
                guard case .complete(let message) = decoder.decode(bytes) else { return "unparsed" }
                switch RequestBytes(buffer: UnsafeRawBufferPointer(bytes), head: message.head).queryValue(name) {
                case .absent: return "absent"
                case .encoded: return "encoded"
                case .plain(let raw): return "plain:" + String(decoding: raw, as: UTF8.self)
                }
            }
        }
        #expect(value("/a", "page") == "absent")
        #expect(value("/a?page=3", "page") == "plain:3")
        #expect(value("/a?x=1&page=3&page=4", "page") == "plain:3")
        #expect(value("/a?page", "page") == "plain:")
        #expect(value("/a?pages=3", "page") == "absent")
        #expect(value("/a?page=%33", "page") == "encoded")
        #expect(value("/a?x=a+b&page=3", "page") == "encoded")
    }

    /// The list's stored path reads every parameter in one pass, as the routed path would:
    /// the first value counts; a search, an encoded pair or a value the routed path refuses
    /// is declined (nil: the routed path answers).
    @Test func listQueriesAreReadInOnePass() {
        func query(_ target: String) -> ListQuery? {
            var decoder = RequestDecoder()
            var buffer = Array("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
            return buffer.withUnsafeMutableBytes { bytes in
                guard case .complete(let message) = decoder.decode(bytes) else { return nil }
                return ListQueryParameters.parseStored(RequestBytes(buffer: UnsafeRawBufferPointer(bytes), head: message.head))
            }
        }
        #expect(query("/v1/products") == ListQuery())
        #expect(query("/v1/products?page=3&pageSize=50") == ListQuery(page: 3, pageSize: 50))
        #expect(query("/v1/products?include=placeholders&page=2") == ListQuery(page: 2, includePlaceholders: true))
        #expect(query("/v1/products?page=2&page=9&include=placeholders&include=x") == ListQuery(page: 2, includePlaceholders: true))
        #expect(query("/v1/products?x=1&pageSize=7") == ListQuery(pageSize: 7))
        #expect(query("/v1/products?page") == nil)
        #expect(query("/v1/products?page=0") == nil)
        #expect(query("/v1/products?include=Placeholders") == nil)
        #expect(query("/v1/products?include=") == nil)
        #expect(query("/v1/products?q=shoe") == nil)
        #expect(query("/v1/products?page=1&x=%20") == nil)
        #expect(query("/v1/products?x=a+b&page=1") == nil)
    }
}
