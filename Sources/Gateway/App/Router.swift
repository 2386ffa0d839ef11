import HTTPInterface
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

    enum Match: Sendable {
        case found(RouteHandler, parameters: [String: String], pattern: String)
        case options(allowed: [HTTPMethod], pattern: String)
        case methodNotAllowed(allowed: [HTTPMethod], pattern: String)
        case notFound
    }

    private var routes: [Route] = []
    private var storedRoutes: [StoredRoute] = []

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
        for route in routes where route.method == method || (method == .head && route.method == .get) {
            if let parameters = route.pattern.match(segments) {
                return .found(route.handler, parameters: parameters, pattern: route.pattern.description)
            }
        }
        guard let (allowed, pattern) = allowedMethods(segments) else { return .notFound }
        return method == .options ? .options(allowed: allowed, pattern: pattern) : .methodNotAllowed(allowed: allowed, pattern: pattern)
    }

    /// What routing decided for one request: a label for metrics and logs, and the work
    /// that answers it.
    public struct Resolution: Sendable {
        /// The route's pattern (`/v1/products/{id}`), or `unmatched` for a 404: never the
        /// raw path, so clients cannot multiply metric label values.
        public let label: String
        fileprivate let match: Match
        fileprivate let unmatched: RouteHandler?

        /// Answers through `responder` exactly once. On the loop thread that owns the
        /// request. `drain` tells handlers whether the server is shutting down.
        public func run(
            _ request: GatewayRequest, logger: Logger, origin: (any OriginSending)? = nil, redis: (any RedisCommanding)? = nil, drain: DrainState? = nil,
            responder: Responder
        ) {
            switch match {
            case .found(let handler, let parameters, _):
                let context = RouteContext(
                    parameters: parameters, requestID: request.requestID, logger: logger, origin: origin, redis: redis, drain: drain,
                    traceID: request.trace.traceID)
                handler.run(request, context: context, responder: responder)
            case .options(let allowed, _):
                responder.send(GatewayResponse(status: 204, headers: ["Allow": allowed.map(\.rawValue).joined(separator: ", ")]))
            case .methodNotAllowed(let allowed, _):
                if let unmatched {
                    unmatched.run(request, context: RouteContext(requestID: request.requestID, logger: logger, traceID: request.trace.traceID), responder: responder)
                } else {
                    responder.fail(GatewayError.methodNotAllowed(request.method, allowed: allowed))
                }
            case .notFound:
                if let unmatched {
                    unmatched.run(request, context: RouteContext(requestID: request.requestID, logger: logger, traceID: request.trace.traceID), responder: responder)
                } else {
                    responder.fail(GatewayError.notFound())
                }
            }
        }
    }

    /// Adds a stored-answer handler for `pattern`, which must also have an ordinary `GET`
    /// route (the one that answers whenever the handler declines).
    public mutating func addStored(_ pattern: String, _ handler: @escaping StoredRoute.Handler) {
        storedRoutes.append(StoredRoute(pattern: pattern, handler: handler))
    }

    /// Whether any stored-answer handler exists (the transport skips the attempt otherwise).
    var hasStoredRoutes: Bool { !storedRoutes.isEmpty }

    /// Runs the stored-answer handler whose pattern matches `request`'s path; the route
    /// label (its pattern) when it answered into `answer`, nil when none did. On the loop
    /// thread that owns the request.
    func answerStored(_ request: RequestBytes, into answer: inout StoredAnswer) -> String? {
        let path = request.path
        for route in storedRoutes {
            guard let parameter = route.match(path) else { continue }
            return route.handler(request, parameter, &answer) ? route.pattern.description : nil
        }
        return nil
    }

    /// The methods a known path takes (GET brings HEAD; OPTIONS always) and its pattern, or
    /// nil when no route has the path.
    public func allowedMethods(path: String) -> (methods: [HTTPMethod], pattern: String)? {
        PathPattern.split(path).flatMap(allowedMethods)
    }

    private func allowedMethods(_ segments: [String]) -> (methods: [HTTPMethod], pattern: String)? {
        var allowed: [HTTPMethod] = []
        var pattern: String?
        for route in routes where route.pattern.match(segments) != nil {
            allowed.append(route.method)
            pattern = pattern ?? route.pattern.description
        }
        guard let pattern else { return nil }
        if allowed.contains(.get) { allowed.append(.head) }
        allowed.append(.options)
        return (HTTPMethod.allCases.filter(allowed.contains), pattern)
    }

    /// Finds what answers `request`, without running it.
    public func resolve(_ request: GatewayRequest) -> Resolution {
        let match = match(request.method, path: request.path)
        let label: String
        switch match {
        case .found(_, _, let pattern), .options(_, let pattern), .methodNotAllowed(_, let pattern): label = pattern
        case .notFound: label = "unmatched"
        }
        return Resolution(label: label, match: match, unmatched: unmatched)
    }

    /// Routes `request` and answers through `responder` exactly once. On the loop thread
    /// that owns the request.
    public func dispatch(_ request: GatewayRequest, logger: Logger, responder: Responder) {
        resolve(request).run(request, logger: logger, responder: responder)
    }
}
