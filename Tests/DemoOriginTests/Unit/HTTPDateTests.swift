@testable import DemoOrigin
import Foundation
import Testing

@Suite struct HTTPDateTests {
    @Test func formatsAndParsesIMFFixdate() {
        let date = Date(timeIntervalSince1970: 784_111_777.9)
        #expect(HTTPDate.format(date) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == Date(timeIntervalSince1970: 784_111_777))
        #expect(HTTPDate.format(Date(timeIntervalSince1970: 1_611_523_563.72)) == "Sun, 24 Jan 2021 21:26:03 GMT")
        for bad in ["Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49 GMT", "", "Sun, 06 Foo 1994 08:49:37 GMT"] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
    }
}
