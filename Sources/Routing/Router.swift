import HTTPInterface
import Logging

/// The route table: each route declared once with its method, pattern, handler, optional
/// stored (cache-hit) answer and optional rate-limit class.
///
/// Unknown paths get 404; a known path with another method gets 405 with `Allow`. `HEAD`
/// runs the `GET` route (the transport sends no body), and `OPTIONS` on a known path
/// answers 204 with `Allow` unless a route takes `OPTIONS` itself. A router with an
/// `unmatched` handler gives it every request that would get the 404 or the 405 instead.
///
/// One classification per request (`classify`, over the request's bytes) yields the route,
/// its parameter and its class; a stored answer, the routed handler and the rate limiter
/// all use that one result.
public struct Router: Sendable {
    struct Route: Sendable {
        let method: HTTPMethod
        let pattern: PathPattern
        /// The pattern's literal segments as bytes, nil at parameters.
        let segments: [[UInt8]?]
        let handler: RouteHandler
        let stored: StoredRoute.Handler?
        /// The rate-limit class requests of this route spend (`reads`), or nil.
        let limit: String?
    }

    /// How a request matched.
    enum Outcome: Int, Sendable {
        /// A route takes it; its path needed no decoding (the parameter range is in the raw path).
        case found
        /// A route takes it; its path was percent-decoded to match.
        case foundDecoded
        /// `OPTIONS` on a known path no route takes `OPTIONS` on.
        case options
        /// A known path, another method (or a method the gateway does not know).
        case methodNotAllowed
        case notFound
    }

    /// One request's match: the outcome, the route (for 405 and `OPTIONS`, the path's first
    /// route) and the parameter's bytes in the raw path (`.found` only).
    struct Classification: Sendable, Equatable {
        var outcome: Outcome
        var route: Int
        var parameter: Range<Int> = 0..<0
    }

    private(set) var routes: [Route] = []

    /// Answers the requests no route takes (instead of 404, and of 405 on a known path), with
    /// an empty `parameters`. For servers that must see every request, such as a test origin
    /// that counts what it was sent; the gateway itself leaves it nil.
    public var unmatched: RouteHandler?

    public init() {}

    /// Adds a route. Patterns are literal segments and `{name}` parameters.
    /// - Parameters:
    ///   - limit: the rate-limit class its requests spend (the application's limiter names
    ///     them); a method no route takes on this path spends the class of the path's first
    ///     route that is not a `GET`, or else of its `GET` route.
    ///   - stored: a handler that answers `GET` and `HEAD` from what is stored, or declines
    ///     (then `handler` runs); at most one parameter in the pattern.
    public mutating func add(
        _ method: HTTPMethod, _ pattern: String, limit: String? = nil, stored: StoredRoute.Handler? = nil, _ handler: RouteHandler
    ) {
        let parsed = PathPattern(pattern)
        let segments: [[UInt8]?] = parsed.segments.map { segment in
            switch segment {
            case .literal(let text): Array(text.utf8)
            case .parameter: nil
            }
        }
        precondition(stored == nil || segments.filter { $0 == nil }.count <= 1, "stored routes take at most one parameter: \(pattern)")
        precondition(stored == nil || method == .get, "stored answers are for GET routes: \(pattern)")
        routes.append(Route(method: method, pattern: parsed, segments: segments, handler: handler, stored: stored, limit: limit))
    }

    // MARK: - Classification

    /// Matches `method` (nil: one the gateway does not know) and `path` (the raw target's
    /// path, without the query). A path without `%` is matched byte for byte and allocates
    /// nothing; one with escapes is decoded first, as `PathPattern.split` does. A path that
    /// cannot match any route (empty or dot segments, bad escapes, an encoded `/`) is
    /// `notFound`.
    func classify(method: HTTPMethod?, path: UnsafeRawBufferPointer) -> Classification {
        guard path.first == UInt8(ascii: "/") else { return Classification(outcome: .notFound, route: -1) }
        if path.contains(UInt8(ascii: "%")) {
            guard let segments = PathPattern.split(String(decoding: path, as: UTF8.self)) else {
                return Classification(outcome: .notFound, route: -1)
            }
            return classify(method: method, found: .foundDecoded) { route in
                route.pattern.match(segments) == nil ? nil : 0..<0
            }
        }
        return classify(method: method, found: .found) { route in Self.match(route.segments, path) }
    }

    private func classify(method: HTTPMethod?, found: Outcome, _ matches: (Route) -> Range<Int>?) -> Classification {
        var firstOnPath = -1
        for index in routes.indices {
            let route = routes[index]
            guard let parameter = matches(route) else { continue }
            if let method, route.method == method || (method == .head && route.method == .get) {
                return Classification(outcome: found, route: index, parameter: parameter)
            }
            if firstOnPath < 0 { firstOnPath = index }
        }
        guard firstOnPath >= 0 else { return Classification(outcome: .notFound, route: -1) }
        return Classification(outcome: method == .options ? .options : .methodNotAllowed, route: firstOnPath)
    }

    /// The parameter's range when `path` (no escapes, starting with `/`) matches `segments`
    /// (empty when the pattern has none; the last one's when it has several); nil otherwise.
    /// Empty and dot segments never match, as `PathPattern.split` refuses them.
    static func match(_ segments: [[UInt8]?], _ path: UnsafeRawBufferPointer) -> Range<Int>? {
        if path.count == 1 { return segments.isEmpty ? 0..<0 : nil }
        var parameter = 0..<0
        var index = 1
        var segmentNumber = 0
        while index <= path.count {
            var end = index
            while end < path.count && path[end] != UInt8(ascii: "/") { end += 1 }
            guard segmentNumber < segments.count, end > index else { return nil }
            let segment = UnsafeRawBufferPointer(rebasing: path[index..<end])
            if segment.count <= 2 && segment.allSatisfy({ $0 == UInt8(ascii: ".") }) { return nil }
            if let literal = segments[segmentNumber] {
                guard segment.elementsEqual(literal) else { return nil }
            } else {
                parameter = index..<end
            }
            segmentNumber += 1
            index = end + 1
        }
        return segmentNumber == segments.count ? parameter : nil
    }

    /// The route label of a classification: its pattern, or `unmatched`.
    func label(_ classification: Classification) -> String {
        classification.route < 0 ? "unmatched" : routes[classification.route].pattern.description
    }

    /// The rate-limit class a classified request spends: its route's, or for a method no
    /// route on the path takes, the path's first non-`GET` route's (else its `GET` route's).
    /// `OPTIONS` and unknown paths spend none.
    func limit(_ classification: Classification) -> String? {
        switch classification.outcome {
        case .found, .foundDecoded: return routes[classification.route].limit
        case .options, .notFound: return nil
        case .methodNotAllowed:
            let pattern = routes[classification.route].pattern
            let onPath = routes.filter { $0.pattern == pattern }
            return (onPath.first { $0.method != .get } ?? onPath[0]).limit
        }
    }

    // MARK: - Answering

    /// Runs the stored-answer handler of a `.found` route that has one, with the parameter's
    /// bytes; false when there is none or it declined. On the loop thread.
    func answerStored(_ classification: Classification, _ request: RequestBytes, into answer: inout StoredAnswer) -> Bool {
        guard classification.outcome == .found, let stored = routes[classification.route].stored else { return false }
        let path = request.path
        let parameter = UnsafeRawBufferPointer(rebasing: path[classification.parameter])
        return stored(request, parameter, &answer)
    }

    /// Answers `request` as `classification` says, through `responder`, exactly once. On the
    /// loop thread that owns the request.
    func run(
        _ classification: Classification, _ request: GatewayRequest, logger: Logger, services: LoopServices?, storedProbe: (any Sendable)? = nil,
        responder: Responder
    ) {
        switch classification.outcome {
        case .found, .foundDecoded:
            let route = routes[classification.route]
            let parameters = PathPattern.split(request.path).flatMap(route.pattern.match) ?? [:]
            let context = RouteContext(
                parameters: parameters, requestID: request.requestID, logger: logger, origin: services?.origin, redis: services?.redis,
                drain: services?.drain, traceID: request.trace.traceID, storedProbe: storedProbe)
            route.handler.run(request, context: context, responder: responder)
        case .options:
            responder.send(GatewayResponse(status: 204, headers: ["Allow": allowedMethods(route: classification.route).map(\.rawValue).joined(separator: ", ")]))
        case .methodNotAllowed, .notFound:
            if let unmatched {
                unmatched.run(request, context: RouteContext(requestID: request.requestID, logger: logger, traceID: request.trace.traceID), responder: responder)
            } else if classification.outcome == .notFound {
                responder.fail(GatewayError.notFound())
            } else if let unknown = request.unknownMethod {
                responder.fail(GatewayError.methodNotAllowed(unknown, allowed: allowedMethods(route: classification.route)))
            } else {
                responder.fail(GatewayError.methodNotAllowed(request.method, allowed: allowedMethods(route: classification.route)))
            }
        }
    }

    /// The methods the path of route `index` takes (GET brings HEAD; OPTIONS always), in
    /// `HTTPMethod` order.
    private func allowedMethods(route index: Int) -> [HTTPMethod] {
        let pattern = routes[index].pattern
        var allowed = routes.filter { $0.pattern == pattern }.map(\.method)
        if allowed.contains(.get) { allowed.append(.head) }
        allowed.append(.options)
        return HTTPMethod.allCases.filter(allowed.contains)
    }

    // MARK: - String requests (tests, the demo origin's retry)

    /// Classifies a request that is already plain values.
    func classify(_ request: GatewayRequest) -> Classification {
        let method: HTTPMethod? = request.unknownMethod == nil ? request.method : nil
        var path = request.path
        return path.withUTF8 { classify(method: method, path: UnsafeRawBufferPointer($0)) }
    }

    /// The methods a known path takes and its pattern, or nil when no route has the path.
    public func allowedMethods(path: String) -> (methods: [HTTPMethod], pattern: String)? {
        var path = path
        let classification = path.withUTF8 { classify(method: nil, path: UnsafeRawBufferPointer($0)) }
        guard classification.route >= 0 else { return nil }
        return (allowedMethods(route: classification.route), routes[classification.route].pattern.description)
    }

    /// The route label `request` would be counted under.
    public func label(for request: GatewayRequest) -> String {
        label(classify(request))
    }

    /// Routes `request` and answers through `responder` exactly once. On the loop thread
    /// that owns the request; handlers get no origin or Redis.
    public func dispatch(_ request: GatewayRequest, logger: Logger, responder: Responder) {
        run(classify(request), request, logger: logger, services: nil, responder: responder)
    }
}
