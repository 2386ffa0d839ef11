import GatewayModels
import HTTPInterface
import Tracing
import Logging
import Observability
import GatewaySupport

/// A `Router` as the application a server runs: classifies each request once (bearer token
/// judged through `authenticator`, route, parameter, rate-limit class spent through
/// `admission`), answers stored routes, and runs the route's handler with the loop's services
/// and the request's verified identity.
///
/// Immutable; any thread (the methods are called on the loop that owns the request).
public final class RouterApplication: ServerApplication {
    public let router: Router
    private let admission: (any RequestAdmission)?
    private let authenticator: (any RequestAuthenticating)?
    /// For each route, its class's number in `admission`, or nil.
    private let classNumbers: [Int?]
    private let logger: Logger
    private let metrics: GatewayMetrics?

    /// - Parameters:
    ///   - admission: spends rate-limit budgets; nil limits nothing.
    ///   - authenticator: judges bearer tokens; nil when authentication is off.
    ///   - metrics: counts refused requests (`gateway_rate_limited_total`).
    public init(
        router: Router, admission: (any RequestAdmission)? = nil, authenticator: (any RequestAuthenticating)? = nil, logger: Logger,
        metrics: GatewayMetrics? = nil
    ) {
        self.router = router
        self.admission = admission
        self.authenticator = authenticator
        self.logger = logger
        self.metrics = metrics
        classNumbers = router.routes.map { route in route.limit.flatMap { admission?.classNumber(named: $0) } }
    }

    public func classify(_ request: RequestBytes, peer: IPAddress) -> RequestRouting {
        let method = HTTPMethod(bytes: request.method)
        let classification = router.classify(method: method, path: request.path)
        var routing = RequestRouting(
            label: router.label(classification), route: classification.route, outcome: classification.outcome.rawValue,
            parameter: classification.parameter)
        if let authenticator { routing.authentication = authenticator.authenticate(request) }
        guard let admission else { return routing }
        var limitRoute = classification.limitRoute
        if classification.outcome == .notFound { limitRoute = router.resourceLimitRoute(method: method, path: request.path) }
        if limitRoute >= 0, let number = classNumbers[limitRoute] {
            let spent = admission.spend(number, request: request, peer: peer, subject: routing.subject)
            routing.rateLimit = spent
            // Refused before its method was judged: counted as unmatched, as no route runs.
            if method == nil && !spent.allowed { routing.label = "unmatched" }
        }
        return routing
    }

    public func answerStored(_ request: RequestBytes, routing: RequestRouting, into answer: inout StoredAnswer) -> Bool {
        guard routing.rateLimit?.allowed != false else { return false }
        switch routing.authentication {
        case .anonymous, .verified: break
        case .refused, .awaitingKeys: return false
        }
        return router.answerStored(Self.classification(routing), request, into: &answer)
    }

    public func handle(_ request: GatewayRequest, routing: RequestRouting, services: LoopServices, responder: Responder) {
        if let rateLimit = routing.rateLimit, !rateLimit.allowed {
            metrics?.rateLimited(route: routing.label, policy: rateLimit.policyName)
            return responder.fail(GatewayError.rateLimited(policy: rateLimit.policyName, retryAfterSeconds: rateLimit.retryAfterSeconds))
        }
        switch routing.authentication {
        case .anonymous: run(request, routing: routing, services: services, responder: responder)
        case .verified(let identity):
            var request = request
            request.identity = identity
            run(request, routing: routing, services: services, responder: responder)
        case .refused(let error): responder.fail(error)
        case .awaitingKeys(let pending):
            guard let authenticator, let loop = services.origin?.loop ?? services.redis?.loop else {
                return responder.fail(GatewayError.authKeysUnavailable(retryAfterSeconds: 5))
            }
            authenticator.resume(pending, on: loop, trace: TraceScope(tracer: services.tracer, trace: request.trace)) { [self] decided in
                var routing = routing
                routing.authentication = decided
                if case .verified(let identity) = decided { responder.identify(user: identity.subject) }
                handle(request, routing: routing, services: services, responder: responder)
            }
        }
    }

    private func run(_ request: GatewayRequest, routing: RequestRouting, services: LoopServices, responder: Responder) {
        router.run(Self.classification(routing), request, logger: logger, services: services, storedProbe: routing.storedProbe, responder: responder)
    }

    public func refusal(forTracePath path: String) -> GatewayError {
        guard let (allowed, _) = router.allowedMethods(path: path) else { return .notFound() }
        return .methodNotAllowed(.trace, allowed: allowed)
    }

    private static func classification(_ routing: RequestRouting) -> Router.Classification {
        Router.Classification(outcome: Router.Outcome(rawValue: routing.outcome) ?? .notFound, route: routing.route, parameter: routing.parameter)
    }
}
