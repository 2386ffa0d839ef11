import Testing
@testable import Gateway

@Suite struct AcceptEncodingTests {
    @Test(arguments: [
        ("gzip", true),
        ("gzip, deflate, br", true),
        ("br;q=1.0, gzip;q=0.5", true),
        ("GZIP", true),
        ("x-gzip", true),
        ("*", true),
        ("identity, *;q=0.1", true),
        ("gzip;q=0", false),
        ("gzip; q=0.000", false),
        ("*, gzip;q=0", false),
        ("deflate, br", false),
        ("identity", false),
        ("*;q=0", false),
        ("gzip;q=abc", false),
        ("", false),
    ])
    func decidesGzip(header: String, expected: Bool) {
        #expect(AcceptEncoding.allowsGzip(header) == expected)
    }

    @Test func noHeaderMeansIdentity() {
        #expect(AcceptEncoding.allowsGzip(nil) == false)
    }
}
