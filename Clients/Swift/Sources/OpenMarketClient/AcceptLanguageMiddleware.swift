import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends the user's languages as `Accept-Language` on every request that does not carry one
/// (an operation's own `acceptLanguage` argument wins). ``OpenMarket/client(serverURL:session:preferredLanguages:)``
/// installs it; add it yourself when you build a ``Client`` by hand.
public struct AcceptLanguageMiddleware: ClientMiddleware {
    /// The header value, computed once; `nil` sends none.
    public let value: String?

    /// - Parameter preferredLanguages: BCP 47 tags, most preferred first (see ``AcceptLanguage/header(for:)``).
    public init(preferredLanguages: [String]) {
        value = AcceptLanguage.header(for: preferredLanguages)
    }

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let value, request.headerFields[.acceptLanguage] == nil {
            request.headerFields[.acceptLanguage] = value
        }
        return try await next(request, body, baseURL)
    }
}
