import Foundation
import Testing
@testable import GatewayModels
@testable import GatewaySupport

@Suite struct FieldErrorTests {
    @Test func encodesAsFieldAndMessage() throws {
        let error = FieldError(field: "price", message: "must not be negative")
        let data = try JSONEncoder().encode(error)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: String]
        #expect(object == ["field": "price", "message": "must not be negative"])
    }
}
