import Testing
import GatewayModels
import GatewaySupport

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

extension AcceptEncodingTests {
    @Test(arguments: [
        ("gzip;q=0.5000", false),
        (" , ,gzip", true),
        ("x-GZip;q=0.001", true),
        ("gzip;level=1", true),
        ("*;q=0.5, gzip;q=abc", false),
        ("*;q=x", false),
    ])
    func readsWeightsAsRFC9110Writes(header: String, expected: Bool) {
        #expect(AcceptEncoding.allowsGzip(header) == expected)
    }

    /// What was left unread may have refused gzip, so it is not allowed on a guess.
    @Test func readsABoundedPartOfTheHeaderAndNeverGuesses() {
        let filler = (1...31).map { "a\($0)" }.joined(separator: ", ")
        let long = String(repeating: "a", count: 16_000)
        #expect(AcceptEncoding.allowsGzip("br, " + filler + ", gzip") == false)
        #expect(AcceptEncoding.allowsGzip("*, " + filler + ", gzip;q=0") == false)
        #expect(AcceptEncoding.allowsGzip("*, gzip;q=0;" + String(repeating: "x", count: 130)) == false)
        #expect(AcceptEncoding.allowsGzip(long + ", gzip") == false)
        #expect(AcceptEncoding.allowsGzip("gzip, " + long) == true)
        #expect(AcceptEncoding.allowsGzip("gzip, " + filler + ", br, deflate") == true)
        #expect(AcceptEncoding.allowsGzip("*, " + filler) == true)
    }
}
