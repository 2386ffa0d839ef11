@testable import HTTPInterface
import Testing
@testable import Gateway

@Suite struct RequestIDTests {
    @Test func keepsSafeClientIDs() {
        #expect(RequestID.accept("abc-123_x.y:z/1+2=3@4") == "abc-123_x.y:z/1+2=3@4")
    }

    @Test func replacesUnsafeOrMissingIDs() {
        for candidate in [nil, "", "has space", "quote\"", String(repeating: "a", count: 129), "tab\t", "é"] {
            let id = RequestID.accept(candidate)
            #expect(id != candidate)
            #expect(id.count == 32)
            #expect(id.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        }
        #expect(RequestID.generate() != RequestID.generate())
    }
}
