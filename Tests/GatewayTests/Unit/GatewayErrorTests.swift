import GatewayModels
@testable import HTTPInterface
import Testing
@testable import Gateway
import GatewaySupport

@Suite struct GatewayErrorTests {
    @Test func rendersProblemJSONWithEveryFieldError() {
        let error = GatewayError.invalidFields([
            FieldError(field: "price", message: "must not be negative"),
            FieldError(field: "title", message: "is required \"always\""),
        ])
        let response = error.response(requestID: "abc")
        #expect(response.status == 400)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(String(decoding: response.body, as: UTF8.self) == """
            {"type":"urn:open-market-gateway:problem:invalid-fields","title":"Invalid request fields","status":400,\
            "detail":"2 fields are invalid.","requestId":"abc","errors":[{"field":"price","message":"must not be negative"},\
            {"field":"title","message":"is required \\"always\\""}]}
            """)
    }

    @Test func statusesAndHeaders() {
        #expect(GatewayError.methodNotAllowed(.post, allowed: [.get, .head]).headers["Allow"] == "GET, HEAD")
        #expect(GatewayError.malformedRequest("x").headers["Connection"] == "close")
        #expect(GatewayError.payloadTooLarge(limit: 10).status == 413)
        #expect(GatewayError.payloadTooLarge(limit: 10).title == "Content Too Large")
        #expect(GatewayError.unsupportedMediaType("x").status == 415)
        #expect(GatewayError.badGateway("x").status == 502)
        #expect(GatewayError.gatewayTimeout("x").status == 504)
        #expect(GatewayError.notFound().title == "Not Found")
    }
}
