import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends the contract's header parameters as written, undoing the percent-encoding that
/// swift-openapi-runtime (1.13) applies to every header parameter it serialises.
///
/// Without it, `If-None-Match: "c23922c6027435e3"` leaves as `%22c23922c6027435e3%22`, which
/// matches no ETag (every conditional GET gets a full 200), and `Accept-Language:
/// en-US,en;q=0.9` as `en-US%2Cen%3Bq%3D0.9`, which names no language. The generator's
/// maintainers track the behaviour (apple/swift-openapi-generator#529, #827, #857; OpenAPI
/// 3.1.1 says header values are not percent-encoded) and point to a middleware like this one.
/// The runtime encodes every byte outside the unreserved set, `%` included, so decoding
/// gives back exactly the value the app passed. A value that does not decode is left alone.
/// Delete this when the runtime stops encoding (a test in this package says when).
public struct RawHeaderParametersMiddleware: ClientMiddleware {
    /// The header parameters of openapi.yaml.
    public static let names: [HTTPField.Name] = [
        .acceptLanguage, .ifNoneMatch,
        HTTPField.Name("X-Request-ID")!, HTTPField.Name("Idempotency-Key")!, HTTPField.Name("Vendor-Identifier")!,
    ]

    public init() {}

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        for name in Self.names {
            guard let value = request.headerFields[name], value.contains("%"),
                  let decoded = value.removingPercentEncoding
            else { continue }
            request.headerFields[name] = decoded
        }
        return try await next(request, body, baseURL)
    }
}
