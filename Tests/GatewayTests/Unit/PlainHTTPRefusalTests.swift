import Testing
@testable import Transport

/// The 400 for plain HTTP sent to the TLS port, built from what the client sent.
@Suite struct PlainHTTPRefusalTests {
    @Test func aRequestLineAndHostNameTheURLToUse() {
        let head = Array("GET /v1/products?page=2 HTTP/1.1\r\nUser-Agent: curl\r\nHOST:  shop.example:8443\r\n\r\n".utf8)
        #expect(PlainHTTPRefusal.httpsURL(peeked: head) == "https://shop.example:8443/v1/products?page=2")
        #expect(PlainHTTPRefusal.httpsURL(peeked: Array("HEAD /healthz HTTP/1.0\r\nHost: [::1]:8443\r\n\r\n".utf8)) == "https://[::1]:8443/healthz")
    }

    @Test(arguments: [
        "GET /x HTTP/1.1\r\n\r\n",
        "GET /x HTTP/1.1\r\nHost: evil\"host\r\n\r\n",
        "GET /x HTTP/1.1\r\nHost: a b\r\n\r\n",
        "GET /x HTTP/1.1\r\nHost: \r\n\r\n",
        "GET /x\"y HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET x HTTP/1.1\r\nHost: h\r\n\r\n",
        "GET /x SPDY/3\r\nHost: h\r\n\r\n",
        "GARBAGE\r\n\r\n",
        "GET /x HTTP/1.1\r\n\r\nHost: after-the-head\r\n",
    ])
    func anythingElseNamesNoURL(_ head: String) {
        #expect(PlainHTTPRefusal.httpsURL(peeked: Array(head.utf8)) == nil)
    }

    @Test func theAnswerIsAProblemInPlainText() {
        let answer = PlainHTTPRefusal.response(
            peeked: Array("GET /v1/products HTTP/1.1\r\nHost: localhost:8443\r\n\r\n".utf8), requestID: "r-1", traceID: "0af7651916cd43dd8448eb211c80319c")
        let body = #"{"type":"urn:open-market-gateway:problem:plain-http-on-tls-port","title":"Bad Request","status":400,"#
            + #""detail":"plain HTTP sent to the TLS port; use https://localhost:8443/v1/products","requestId":"r-1","#
            + #""traceId":"0af7651916cd43dd8448eb211c80319c"}"#
        #expect(String(decoding: answer, as: UTF8.self) == "HTTP/1.1 400 Bad Request\r\nContent-Type: application/problem+json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\nX-Request-ID: r-1\r\n\r\n" + body)
        let unnamed = String(decoding: PlainHTTPRefusal.response(peeked: Array("PRI * HTTP/2.0\r\n\r\n".utf8), requestID: "r", traceID: "t"), as: UTF8.self)
        #expect(unnamed.contains(#""detail":"plain HTTP sent to the TLS port; use https://""#))
    }

    /// A TLS record never starts with an uppercase letter; a request line always does.
    @Test func theFirstByteTellsTLSFromHTTP() {
        #expect(PlainHTTPRefusal.startsPlainHTTP(UInt8(ascii: "G")))
        #expect(PlainHTTPRefusal.startsPlainHTTP(UInt8(ascii: "P")))
        #expect(PlainHTTPRefusal.startsPlainHTTP(22) == false)
        #expect(PlainHTTPRefusal.startsPlainHTTP(0x80) == false)
        #expect(PlainHTTPRefusal.startsPlainHTTP(UInt8(ascii: "g")) == false)
    }
}
