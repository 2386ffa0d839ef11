import Foundation
import GatewayModels
import HTTPInterface
import Routing
import GatewaySupport

/// `GET /readyz`, for load balancers and for apps that show a "service unavailable" banner.
///
/// - 200 `{"status":"ready","origin":"up"|"down","checkedAt":…}` while this process can serve,
///   also when the origin is down (stale pages still serve, and one origin blip must not pull
///   every replica out of the load balancer at once);
/// - 503 problem+json (``ReadinessStatus/problemJSON(requestId:)``) once it drains after
///   SIGTERM or SIGINT. While it starts nothing listens yet, so a probe is refused.
///
/// The origin is probed (v2/v2b `GET /healthChecker`, which answers `"OK"`; v1, which has no
/// health route, `GET /items/1`) at most once per ``reuse`` per process, one probe at a time:
/// a burst of `/readyz` cannot flood the origin. The first request waits for the first probe,
/// but no longer than ``firstProbeWait`` (then it answers `"origin":"unknown"`); later ones
/// answer at once with the last result and start a new probe when it is older than
/// ``reuse``. Handlers run on the request's loop; probe results arrive on that loop's origin
/// client and are shared by every loop through one lock.
public final class Readiness: Sendable {
    private struct State {
        var origin: ReadinessStatus.Origin?
        var checkedAt: String?
        var checkedInstant: ContinuousClock.Instant?
        var probing = false
        var waiters: [Int: @Sendable (ReadinessStatus) -> Void] = [:]
        var nextWaiter = 0
    }

    /// How long one probe's result is reused.
    public static let reuse: Duration = .seconds(2)
    /// How long a request waits for the first probe (load balancers time out their checks).
    public static let firstProbeWait: Duration = .seconds(1)

    private let state = Locked(State())
    private let endpoint: OriginEndpoint
    private let generation: OriginGeneration
    /// With `--auth-issuer`: the key set's state for the body's `authKeys`.
    private let authKeys: AuthKeys?
    /// The origin's breaker, for the body's `originBreaker`; a probe goes through it (and may
    /// be the half-open breaker's probe). nil: none.
    private let breaker: CircuitBreaker?

    init(endpoint: OriginEndpoint, generation: OriginGeneration, authKeys: AuthKeys? = nil, breaker: CircuitBreaker? = nil) {
        self.breaker = breaker
        self.endpoint = endpoint
        self.generation = generation
        self.authKeys = authKeys
    }

    /// With Redis Sentinel: the primary and the last failover, in `status`.
    static func describe(_ primary: RedisPrimaryStatus?, in status: inout ReadinessStatus) {
        guard let primary else { return }
        status.redisPrimary = primary.primary
        status.redisLastFailover = primary.lastFailover.map {
            ReadinessStatus.Failover(at: OriginTimestamp.rfc3339(millis: $0.atMillis), durationMs: Int64(($0.seconds * 1000).rounded()))
        }
    }

    public func register(in router: inout Router) {
        router.add(.get, "/readyz", .deferred { [self] request, context, responder in
            // Read now: whether this process reaches the replicas' Redis (nil without one).
            let redis: ReadinessStatus.Origin? = context.redis.map { $0.isReachable ? .up : .down }
            let primary = context.redis?.primaryStatus
            if context.draining {
                var status = status(draining: true)
                status.redis = redis
                Self.describe(primary, in: &status)
                status.authKeys = authKeys?.status.rawValue
                status.originBreaker = breaker?.state.rawValue
                return responder.send(Self.response(status, requestID: request.requestID))
            }
            let now = ContinuousClock.now
            enum Next { case answer(ReadinessStatus), wait, answerAndProbe(ReadinessStatus) }
            // Whoever waits for the first probe answers with the drain state of that moment.
            let waiter: @Sendable (ReadinessStatus) -> Void = { probed in
                var status = probed
                status.draining = context.draining
                status.redis = redis
                Self.describe(primary, in: &status)
                status.authKeys = self.authKeys?.status.rawValue
                status.originBreaker = self.breaker?.state.rawValue
                responder.send(Self.response(status, requestID: request.requestID))
            }
            var waiterID = 0
            let (next, startProbe): (Next, Bool) = state.withLock { state in
                guard let checked = state.checkedInstant else {
                    waiterID = state.nextWaiter
                    state.nextWaiter += 1
                    state.waiters[waiterID] = waiter
                    defer { state.probing = true }
                    return (.wait, !state.probing)
                }
                let snapshot = ReadinessStatus(
                    draining: false, origin: state.origin, checkedAt: state.checkedAt, redis: redis, authKeys: authKeys?.status.rawValue,
                    originBreaker: breaker?.state.rawValue)
                guard now - checked >= Self.reuse, !state.probing else { return (.answer(snapshot), false) }
                state.probing = true
                return (.answerAndProbe(snapshot), true)
            }
            switch next {
            case .answer(var snapshot), .answerAndProbe(var snapshot):
                Self.describe(primary, in: &snapshot)
                responder.send(Self.response(snapshot, requestID: request.requestID))
            case .wait:
                // Answered by the probe or, if it is slow, here: whichever comes first.
                let id = waiterID
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(Self.firstProbeWait.components.seconds * 1000))) { [self] in
                    guard let late = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
                    late(ReadinessStatus(draining: false, origin: .unknown, checkedAt: nil))
                }
            }
            if startProbe { probe(context.origin, requestID: request.requestID) }
        })
    }

    private func status(draining: Bool) -> ReadinessStatus {
        state.withLock { ReadinessStatus(draining: draining, origin: $0.origin, checkedAt: $0.checkedAt) }
    }

    /// Asks the origin once; records the result and answers the waiters. On the loop of `origin`.
    private func probe(_ origin: (any OriginSending)?, requestID: String) {
        guard let origin else { return finish(up: false) }
        let target = generation == .v1 ? OriginGeneration.v1ListTarget(page: 1) : "/healthChecker"
        let request = OriginRequest(method: .get, target: target, requestID: requestID)
        let answered: (Result<OriginResponse, OriginFailure>) -> Void = { [self] result in
            guard case .success(let response) = result, response.status == 200 else { return finish(up: false) }
            guard generation != .v1 else { return finish(up: true) }
            // `"OK"`, a JSON string; some deployments may send the bare word.
            let text = String(decoding: response.body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            finish(up: text == "\"OK\"" || text == "OK")
        }
        guard let breaker else { return origin.send(request, to: endpoint, completion: answered) }
        // An open breaker is the origin's state already: nothing is sent. Past its open time
        // this probe may be the one that tries the origin again.
        guard case .refused = breaker.admit(now: .now) else { return breaker.send(request, via: origin, to: endpoint, completion: answered) }
        finish(up: false)
    }

    private func finish(up: Bool) {
        let millis = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        let (snapshot, waiters) = state.withLock { state in
            state.origin = up ? .up : .down
            state.checkedAt = OriginTimestamp.rfc3339(millis: millis)
            state.checkedInstant = .now
            state.probing = false
            defer { state.waiters = [:] }
            return (ReadinessStatus(draining: false, origin: state.origin, checkedAt: state.checkedAt), state.waiters)
        }
        for waiter in waiters.values { waiter(snapshot) }
    }

    static func response(_ status: ReadinessStatus, requestID: String) -> GatewayResponse {
        var response: GatewayResponse
        if status.draining {
            response = GatewayResponse(status: 503, body: status.problemJSON(requestId: requestID))
            response.headers.set("Content-Type", "application/problem+json")
            response.headers.set("Retry-After", "5")
        } else {
            response = .json(status.jsonBytes())
        }
        response.headers.set("Cache-Control", "no-store")
        return response
    }
}
