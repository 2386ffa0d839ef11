import Testing
@testable import Gateway

@Suite struct RequestFramingTests {
    private func problem(_ pairs: [(String, String)]) -> String? {
        RequestFraming.problem(in: HTTPHeaders([("Host", "example.com")] + pairs))
    }

    @Test func acceptsOrdinaryRequests() {
        #expect(problem([]) == nil)
        #expect(problem([("Content-Length", "42")]) == nil)
        #expect(problem([("Transfer-Encoding", "chunked")]) == nil)
        #expect(problem([("Transfer-Encoding", "Chunked")]) == nil)
        #expect(problem([("Transfer-Encoding", "\tchunked")]) == "Only Transfer-Encoding: chunked is accepted.")
        #expect(problem([("Content-Length", "\t5")]) == "Content-Length must be decimal digits only.")
        #expect(RequestFraming.problem(in: HTTPHeaders([("Host", "x"), ("Content-Length", "0")]), method: .head) == nil)
        #expect(RequestFraming.problem(in: HTTPHeaders([("Host", "x"), ("Content-Length", "4")]), method: .head) == "HEAD requests must not have a body.")
        #expect(problem([("X-Tab", "a\tb")]) == nil)
    }

    @Test func refusesAmbiguousBodyFraming() {
        #expect(problem([("Transfer-Encoding", "chunked"), ("Content-Length", "3")]) == "Transfer-Encoding and Content-Length must not both be present.")
        #expect(problem([("Content-Length", "0"), ("Content-Length", "5")]) == "Content-Length appears more than once.")
        #expect(problem([("Content-Length", "5"), ("content-length", "5")]) == "Content-Length appears more than once.")
        #expect(problem([("Content-Length", "+3")]) == "Content-Length must be decimal digits only.")
        #expect(problem([("Content-Length", "-1")]) == "Content-Length must be decimal digits only.")
        #expect(problem([("Content-Length", "1,1")]) == "Content-Length must be decimal digits only.")
        #expect(problem([("Content-Length", "")]) == "Content-Length must be decimal digits only.")
        #expect(problem([("Transfer-Encoding", "gzip, chunked")]) == "Only Transfer-Encoding: chunked is accepted.")
        #expect(problem([("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")]) == "Transfer-Encoding appears more than once.")
    }

    @Test func refusesBadNamesAndValues() {
        #expect(problem([("", "v")]) == "A header field has an empty name.")
        #expect(problem([("X-A ", "v")]) == "The header name \"X-A \" is not a valid token.")
        #expect(problem([("X-A", "a\u{7F}b")]) == "The value of X-A contains the control byte 0x7f.")
        #expect(problem([("X-A", "a\rb")]) == "The value of X-A contains the control byte 0xd.")
        #expect(problem([("X-A", "a\nb")]) == "The value of X-A contains the control byte 0xa.")
        #expect(problem([("X-A", "a\u{0}b")]) == "The value of X-A contains the control byte 0x0.")
    }

    @Test func requiresExactlyOneHost() {
        #expect(RequestFraming.problem(in: [:]) == "The Host header is required.")
        #expect(problem([("Host", "other")]) == "Host appears more than once.")
    }
}
