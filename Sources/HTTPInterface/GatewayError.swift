import HTTPCodec
import GatewaySupport

/// The one error type the gateway answers with. Every failure a client can see becomes one
/// of these, and the transport renders it as `application/problem+json` (RFC 9457).
///
/// Build them with the static factories; `status` decides the HTTP status code.
public struct GatewayError: Error, Sendable, Equatable {
    /// The HTTP status code.
    public let status: Int
    /// A URI naming the kind of problem; `about:blank` when the status says it all.
    public let type: String
    /// A short summary that is the same for every occurrence of this kind.
    public let title: String
    /// What went wrong this time, for people.
    public let detail: String
    /// Field errors for validation failures, all of them at once.
    public let fieldErrors: [FieldError]
    /// Extra response headers (`Allow` on 405, `Connection: close` after a framing error).
    public let headers: HTTPHeaders
    /// How a cache took part (a fetch that failed: `miss`), for the access line; copied to
    /// the response.
    public var cacheOutcome: CacheOutcome?

    public init(
        status: Int, type: String = "about:blank", title: String? = nil, detail: String,
        fieldErrors: [FieldError] = [], headers: HTTPHeaders = [:]
    ) {
        self.status = status
        self.type = type
        self.title = title ?? HTTPStatus.reasonPhrase(status)
        self.detail = detail
        self.fieldErrors = fieldErrors
        self.headers = headers
    }

    package static let typePrefix = "urn:open-market-gateway:problem:"
    /// Problem bodies' media type; the transport adds `traceId` to bodies of this type.
    package static let problemContentType = "application/problem+json"

    /// This error with one more response header.
    public func adding(header name: String, _ value: String) -> GatewayError {
        var headers = self.headers
        headers.set(name, value)
        var error = GatewayError(status: status, type: type, title: title, detail: detail, fieldErrors: fieldErrors, headers: headers)
        error.cacheOutcome = cacheOutcome
        return error
    }

    public static func badRequest(_ detail: String) -> GatewayError {
        GatewayError(status: 400, detail: detail)
    }

    /// A request whose framing could be read two ways (request smuggling) or is malformed.
    /// The connection is closed after the answer, so no bytes after it are parsed.
    public static func malformedRequest(_ detail: String) -> GatewayError {
        GatewayError(
            status: 400, type: typePrefix + "malformed-request", title: "Malformed request", detail: detail,
            headers: ["Connection": "close"])
    }

    /// Input that was read but is invalid; lists every field error.
    public static func invalidFields(_ errors: [FieldError], status: Int = 400) -> GatewayError {
        GatewayError(
            status: status, type: typePrefix + "invalid-fields", title: "Invalid request fields",
            detail: errors.count == 1 ? "1 field is invalid." : "\(errors.count) fields are invalid.",
            fieldErrors: errors)
    }

    public static func notFound(_ detail: String = "No resource at this path.") -> GatewayError {
        GatewayError(status: 404, detail: detail)
    }

    public static func methodNotAllowed(_ method: HTTPMethod, allowed: [HTTPMethod]) -> GatewayError {
        methodNotAllowed(method.rawValue, allowed: allowed)
    }

    /// 405 for a method by name, known or not, with `Allow`.
    public static func methodNotAllowed(_ method: String, allowed: [HTTPMethod]) -> GatewayError {
        let allow = allowed.map(\.rawValue).joined(separator: ", ")
        return GatewayError(
            status: 405, detail: "\(method) is not allowed here; allowed: \(allow).",
            headers: ["Allow": allow])
    }

    public static func payloadTooLarge(limit: Int) -> GatewayError {
        GatewayError(status: 413, detail: "The request body is larger than the limit of \(limit) bytes.")
    }

    public static func unsupportedMediaType(_ detail: String) -> GatewayError {
        GatewayError(status: 415, detail: detail)
    }

    public static func badGateway(_ detail: String) -> GatewayError {
        GatewayError(status: 502, detail: detail)
    }

    public static func gatewayTimeout(_ detail: String) -> GatewayError {
        GatewayError(status: 504, detail: detail)
    }

    public static func serviceUnavailable(_ detail: String) -> GatewayError {
        GatewayError(status: 503, detail: detail)
    }

    public static func internalError() -> GatewayError {
        GatewayError(status: 500, detail: "The gateway failed to handle this request.")
    }
}
