import GatewaySupport
import HTTPCodec
import HTTPInterface
import Tracing
import Logging

/// The route table: each route declared once with its method, pattern, handler, optional
/// stored (cache-hit) answer and optional rate-limit class.
///
/// Unknown paths get 404; a known path with another method gets 405 with `Allow`. `HEAD`
/// runs the `GET` route (the transport sends no body), and `OPTIONS` on a known path
/// answers 204 with `Allow` unless a route takes `OPTIONS` itself. A router with an
/// `unmatched` handler gives it every request that would get the 404 or the 405 instead. A
/// method the gateway does not know gets 405 on a known path and 501 elsewhere, always.
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
        let bodyLimit: BodyLimit
    }

    /// Which body limit a route's requests are held to; the transport judges it from the
    /// request's head, before a byte of the body is buffered (413 beyond it).
    public enum BodyLimit: Sendable {
        /// `--max-body-bytes`.
        case standard
        /// `--max-upload-bytes`: writes that carry images.
        case upload
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
    /// route), the parameter's bytes in the raw path (`.found` only), and the route whose
    /// rate-limit class the request spends (-1: none; see `limit(_:)`).
    struct Classification: Sendable, Equatable {
        var outcome: Outcome
        var route: Int
        var parameter: Range<Int> = 0..<0
        var limitRoute: Int = -1
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
    ///     them). A method no route takes on a path spends the class of the first route on
    ///     that path that is not a `GET`, or else of its `GET` route; a path under a route's
    ///     first two literal segments that no route takes (`/v1/products/3/x`) spends that
    ///     route's class likewise (`GET` and `HEAD` the `GET` route's). `OPTIONS` and other
    ///     paths spend none.
    ///   - stored: a handler that answers `GET` and `HEAD` from what is stored, or declines
    ///     (then `handler` runs); at most one parameter in the pattern.
    ///   - bodyLimit: the body limit its requests get; `.upload` routes are literal paths, or
    ///     literal segments and one parameter last (see ``uploadRoutes``).
    public mutating func add(
        _ method: HTTPMethod, _ pattern: String, limit: String? = nil, bodyLimit: BodyLimit = .standard, stored: StoredRoute.Handler? = nil,
        _ handler: RouteHandler
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
        precondition(
            bodyLimit == .standard || segments.dropLast().allSatisfy { $0 != nil }, "upload routes take one parameter, last: \(pattern)")
        routes.append(
            Route(method: method, pattern: parsed, segments: segments, handler: handler, stored: stored, limit: limit, bodyLimit: bodyLimit))
    }

    /// The routes that declare the upload limit, as the decoders match them on a request's
    /// head (`RequestLimits.uploadRoutes`): the method, and the literal path or the literal
    /// segments before a last parameter (one segment under them).
    public var uploadRoutes: [UploadRoute] {
        routes.filter { $0.bodyLimit == .upload }.map { route in
            let literals = route.segments.compactMap { $0.map { String(decoding: $0, as: UTF8.self) } }
            let path = "/" + literals.joined(separator: "/")
            return UploadRoute(method: route.method.rawValue, path: path, oneSegmentUnder: route.segments.last.map { $0 == nil } ?? false)
        }
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

    /// The routes of `method` first (`HEAD` takes `GET` routes), then every route for the
    /// path alone (405, `OPTIONS`), else 404 (with the class of the resource the path is
    /// under, if any).
    private func classify(method: HTTPMethod?, found: Outcome, _ matches: (Route) -> Range<Int>?) -> Classification {
        if let method {
            for index in routes.indices where routes[index].method == method || (method == .head && routes[index].method == .get) {
                if let parameter = matches(routes[index]) {
                    return Classification(outcome: found, route: index, parameter: parameter, limitRoute: index)
                }
            }
        }
        var firstOnPath = -1
        var firstWriteOnPath = -1
        for index in routes.indices where matches(routes[index]) != nil {
            if firstOnPath < 0 { firstOnPath = index }
            if firstWriteOnPath < 0 && routes[index].method != .get { firstWriteOnPath = index }
        }
        guard firstOnPath >= 0 else { return Classification(outcome: .notFound, route: -1) }
        if method == .options { return Classification(outcome: .options, route: firstOnPath) }
        return Classification(outcome: .methodNotAllowed, route: firstOnPath, limitRoute: firstWriteOnPath >= 0 ? firstWriteOnPath : firstOnPath)
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
                guard Self.same(segment, literal) else { return nil }
            } else {
                parameter = index..<end
            }
            segmentNumber += 1
            index = end + 1
        }
        return segmentNumber == segments.count ? parameter : nil
    }

    @inline(__always)
    private static func same(_ segment: UnsafeRawBufferPointer, _ literal: [UInt8]) -> Bool {
        guard segment.count == literal.count else { return false }
        return literal.withUnsafeBufferPointer { expected in
            for index in 0..<expected.count where segment[index] != expected[index] { return false }
            return true
        }
    }

    /// For a path no route takes: the route whose class it spends, when the path (decoded) is
    /// a route's first two literal segments or under them (`/v1/products`, `/v1/products/…`),
    /// with `method` other than `OPTIONS`: the `GET` route there for `GET` and `HEAD`, else
    /// the first other route, else the `GET` route. -1 otherwise. Only 404s with limits on
    /// come here; it allocates.
    func resourceLimitRoute(method: HTTPMethod?, path: UnsafeRawBufferPointer) -> Int {
        guard method != .options, let decoded = PercentDecoding.decode(Substring(String(decoding: path, as: UTF8.self))) else { return -1 }
        let read = method == .get || method == .head
        var candidate = -1
        for index in routes.indices where routes[index].limit != nil {
            let segments = routes[index].pattern.segments
            guard segments.count >= 2, case .literal(let first) = segments[0], case .literal(let second) = segments[1] else { continue }
            let prefix = "/\(first)/\(second)"
            guard decoded == prefix || decoded.hasPrefix(prefix + "/") else { continue }
            let isGet = routes[index].method == .get
            if read == isGet { return index }
            if candidate < 0 { candidate = index }
        }
        return candidate
    }

    /// The route label of a classification: its pattern, or `unmatched`.
    func label(_ classification: Classification) -> String {
        classification.route < 0 ? "unmatched" : routes[classification.route].pattern.description
    }

    /// The rate-limit class a classified request spends: its route's, or for a method no
    /// route on the path takes, the path's first non-`GET` route's (else its `GET` route's).
    /// `OPTIONS` and unknown paths spend none.
    func limit(_ classification: Classification) -> String? {
        classification.limitRoute < 0 ? nil : routes[classification.limitRoute].limit
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
                drain: services?.drain, traceID: request.trace.traceID, storedProbe: storedProbe,
                trace: TraceScope(tracer: services?.tracer, trace: request.trace))
            route.handler.run(request, context: context, responder: responder)
        case .options:
            let allowed = allowedMethods(path: request.path)?.methods ?? []
            responder.send(GatewayResponse(status: 204, headers: ["Allow": allowed.map(\.rawValue).joined(separator: ", ")]))
        case .methodNotAllowed, .notFound:
            if let unknown = request.unknownMethod, classification.outcome == .notFound {
                // A method the gateway does not know, on no known path.
                responder.fail(GatewayError(status: 501, detail: "The method \(unknown) is not implemented."))
            } else if let unmatched, request.unknownMethod == nil {
                // `unmatched` takes what a known method would get as 404 or 405; an unknown
                // method on a known path always gets 405.
                unmatched.run(request, context: RouteContext(requestID: request.requestID, logger: logger, traceID: request.trace.traceID), responder: responder)
            } else if classification.outcome == .notFound {
                responder.fail(GatewayError.notFound())
            } else {
                let allowed = allowedMethods(path: request.path)?.methods ?? []
                responder.fail(GatewayError.methodNotAllowed(request.unknownMethod ?? request.method.rawValue, allowed: allowed))
            }
        }
    }


    // MARK: - String requests (tests, the demo origin's retry)

    /// Classifies a request that is already plain values.
    func classify(_ request: GatewayRequest) -> Classification {
        let method: HTTPMethod? = request.unknownMethod == nil ? request.method : nil
        var path = request.path
        return path.withUTF8 { classify(method: method, path: UnsafeRawBufferPointer($0)) }
    }

    /// The methods a known path takes (every route whose pattern matches it; GET brings
    /// HEAD; OPTIONS always), in `HTTPMethod` order, and the first such route's pattern; nil
    /// when no route has the path.
    public func allowedMethods(path: String) -> (methods: [HTTPMethod], pattern: String)? {
        guard let segments = PathPattern.split(path) else { return nil }
        let onPath = routes.filter { $0.pattern.match(segments) != nil }
        guard let first = onPath.first else { return nil }
        var allowed = onPath.map(\.method)
        if allowed.contains(.get) { allowed.append(.head) }
        allowed.append(.options)
        return (HTTPMethod.allCases.filter(allowed.contains), first.pattern.description)
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
