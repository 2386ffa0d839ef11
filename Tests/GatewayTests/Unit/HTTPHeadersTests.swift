@testable import HTTPInterface
import Testing
@testable import Gateway

@Suite struct HTTPHeadersTests {
    @Test func lookupIsCaseInsensitiveAndKeepsDuplicates() {
        var headers: HTTPHeaders = ["Content-Length": "1"]
        headers.add("content-length", "2")
        #expect(headers["CONTENT-LENGTH"] == "1")
        #expect(headers.values("Content-Length") == ["1", "2"])
        headers.set("Content-Length", "3")
        #expect(headers.values("content-length") == ["3"])
        headers.appendToken("Vary", "Accept-Encoding")
        headers.appendToken("vary", "accept-encoding")
        headers.appendToken("Vary", "Accept-Language")
        #expect(headers["Vary"] == "Accept-Encoding, Accept-Language")
    }

    @Test func listContainsMatchesWholeElementsWithoutCase() {
        #expect(HTTPHeaders.listContains("Accept-Encoding", "accept-encoding"))
        #expect(HTTPHeaders.listContains("Origin,  Accept-Encoding ,X", "Accept-Encoding"))
        #expect(HTTPHeaders.listContains("a,,b", "b"))
        #expect(!HTTPHeaders.listContains("Accept-Encodings", "Accept-Encoding"))
        #expect(!HTTPHeaders.listContains("X-Accept-Encoding", "Accept-Encoding"))
        #expect(!HTTPHeaders.listContains("", "Accept-Encoding"))
        #expect(HTTPHeaders.sameName("Content-LENGTH", "content-length"))
        #expect(!HTTPHeaders.sameName("Content-Length", "Content_Length"))
        #expect(!HTTPHeaders.sameName("@", "`"))
    }

    @Test func queryValueDecodesNamesAndValues() {
        let request = GatewayRequest(method: .get, path: "/", query: "pa%67e=7&page=8&x")
        #expect(request.queryValue("page") == "7")
        #expect(request.queryValue("x") == "")
        #expect(GatewayRequest(method: .get, path: "/", query: "").queryValue("page") == nil)
    }

    @Test func queryItemsAreDecoded() {
        let request = GatewayRequest(method: .get, path: "/v1/products", query: "page=2&q=a+b%20c&empty=&flag")
        #expect(request.queryValue("page") == "2")
        #expect(request.queryValue("q") == "a b c")
        #expect(request.queryValue("empty") == "")
        #expect(request.queryValue("flag") == "")
        #expect(request.queryValue("missing") == nil)
    }
}
