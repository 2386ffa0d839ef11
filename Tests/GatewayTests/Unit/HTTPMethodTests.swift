@testable import HTTPInterface
import Testing
@testable import Gateway

@Suite struct HTTPMethodTests {
    @Test func rawValuesAreWireNames() {
        #expect(HTTPMethod(rawValue: "PATCH") == .patch)
        #expect(HTTPMethod.allCases.count == 9)
    }
}
