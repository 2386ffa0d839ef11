import Logging

/// The route table: which handler answers which method on which path.
///
/// Unknown paths get 404; a known path with another method gets 405 with `Allow`. `HEAD`
/// runs the `GET` handler (the transport sends no body), and `OPTIONS` on a known path
/// answers 204 with `Allow` unless a route takes `OPTIONS` itself. A router with an
/// `unmatched` handler gives it every request that would get the 404 or the 405 instead.
public struct Router: Sendable {
    struct Route: Sendable {
        let method: HTTPMethod
        let pattern: PathPattern
        let handler: RouteHandler
    }

    enum Match {
        case found(RouteHandler, parameters: [String: String])
        case options(allowed: [HTTPMethod])
        case methodNotAllowed(allowed: [HTTPMethod])
        case notFound
    }

    private var routes: [Route] = []

    /// Answers the requests no route takes (instead of 404, and of 405 on a known path), with
    /// an empty `parameters`. For servers that must see every request, such as a test origin
    /// that counts what it was sent; the gateway itself leaves it nil.
    public var unmatched: RouteHandler?

    public init() {}

    /// Adds a route. Patterns are literal segments and `{name}` parameters.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: RouteHandler) {
        routes.append(Route(method: method, pattern: PathPattern(pattern), handler: handler))
    }

    /// Finds the handler for `method` on `path` (percent-encoded, without the query).
    func match(_ method: HTTPMethod, path: String) -> Match {
        guard let segments = PathPattern.split(path) else { return .notFound }
        var allowed: [HTTPMethod] = []
        for route in routes {
            guard let parameters = route.pattern.match(segments) else { continue }
            if route.method == method || (method == .head && route.method == .get) {
                return .found(route.handler, parameters: parameters)
            }
            allowed.append(route.method)
        }
        guard !allowed.isEmpty else { return .notFound }
        if allowed.contains(.get) { allowed.append(.head) }
        allowed.append(.options)
        let ordered = HTTPMethod.allCases.filter(allowed.contains)
        return method == .options ? .options(allowed: ordered) : .methodNotAllowed(allowed: ordered)
    }

    /// Routes `request` and answers through `responder` exactly once.
    ///
    /// Called on the loop thread that owns the request. `logger` is the server's; the
    /// request's id is added where a handler logs.
    public func dispatch(_ request: GatewayRequest, logger: Logger, responder: Responder) {
        let match = match(request.method, path: request.path)
        switch match {
        case .found(let handler, let parameters):
            let context = RouteContext(parameters: parameters, requestID: request.requestID, logger: logger)
            handler.run(request, context: context, responder: responder)
        case .options(let allowed):
            responder.send(GatewayResponse(status: 204, headers: ["Allow": allowed.map(\.rawValue).joined(separator: ", ")]))
        case .methodNotAllowed, .notFound:
            if let unmatched {
                let context = RouteContext(requestID: request.requestID, logger: logger)
                unmatched.run(request, context: context, responder: responder)
            } else if case .methodNotAllowed(let allowed) = match {
                responder.fail(GatewayError.methodNotAllowed(request.method, allowed: allowed))
            } else {
                responder.fail(GatewayError.notFound())
            }
        }
    }
}
