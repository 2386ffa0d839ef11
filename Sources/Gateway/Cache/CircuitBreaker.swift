import GatewayModels
import HTTPInterface
import GatewaySupport

/// A circuit breaker for one upstream (the origin): once it fails often enough, nothing is
/// sent to it for a while, so a struggling origin is left alone and clients are answered at
/// once instead of after a time-out.
///
/// - **closed**: every request goes. It opens after `failures` failures in a row, or when,
///   over the last `window`, at least `minimumRequests` requests ended and `ratio` of them
///   failed.
/// - **open**: nothing goes, until `openFor` has passed since it opened.
/// - **half-open**: one request at a time goes, as a probe; its success closes the breaker,
///   its failure opens it again. A probe that never reports back frees the slot after
///   `probeTimeout`.
///
/// A failure is an answer of 500 or more, or none (time-out, connection error, a broken
/// answer); any other answer is a success, whatever its status. Thread-safe; the clock is an
/// argument. `onTransition` runs after the lock is released, once per change, on the thread
/// that caused it (the gateway logs and counts there).
final class CircuitBreaker: Sendable {
    enum State: String, Sendable {
        case closed, open
        case halfOpen = "half-open"
    }

    typealias Settings = BreakerConfiguration

    /// Whether a request may go now.
    enum Admission: Sendable, Equatable {
        case allowed
        /// It goes as the half-open breaker's one probe.
        case probe
        /// Not sent; the breaker may let one through after `retryAfter`.
        case refused(retryAfter: Duration)
    }

    enum Transition: Sendable, Equatable {
        /// `reason`: the run or the ratio that opened it, for the log.
        case opened(reason: String)
        /// The half-open probe failed: open again (the gateway logs only the first opening).
        case reopened
        case halfOpened
        case closed
    }

    let name: String
    let settings: Settings
    private let core: Locked<Core>
    private let onTransition: @Sendable (Transition) -> Void

    /// Counts per `window / buckets`, the oldest first.
    private static let buckets = 10

    private struct Core: Sendable {
        var state = State.closed
        var consecutiveFailures = 0
        /// (bucket index, successes, failures) for the last `buckets` slices of the window.
        var slices: [(index: Int64, successes: Int, failures: Int)] = []
        var openedAt: ContinuousClock.Instant?
        var probeStartedAt: ContinuousClock.Instant?
        /// Where slice 0 starts: the first request counted.
        var origin: ContinuousClock.Instant?
        /// When a probe last closed it.
        var closedAt: ContinuousClock.Instant?
    }

    init(name: String, settings: Settings = Settings(), onTransition: @escaping @Sendable (Transition) -> Void = { _ in }) {
        self.name = name
        self.settings = settings
        self.onTransition = onTransition
        core = Locked(Core())
    }

    var state: State { core.withLock { $0.state } }

    /// Whether it closed after an outage less than `recovery` before `now`: the origin may
    /// still be fragile.
    func recovering(now: ContinuousClock.Instant) -> Bool {
        core.withLock { core in
            guard core.state == .closed, let closedAt = core.closedAt else { return false }
            return now - closedAt < settings.recovery
        }
    }

    /// Whether a request may be sent at `now`.
    func admit(now: ContinuousClock.Instant) -> Admission {
        var transition: Transition?
        let admission = core.withLock { core -> Admission in
            switch core.state {
            case .closed:
                return .allowed
            case .open:
                let opened = core.openedAt ?? now
                guard now - opened >= settings.openFor else { return .refused(retryAfter: settings.openFor - (now - opened)) }
                core.state = .halfOpen
                core.probeStartedAt = now
                transition = .halfOpened
                return .probe
            case .halfOpen:
                if let started = core.probeStartedAt, now - started < settings.probeTimeout {
                    return .refused(retryAfter: settings.openFor)
                }
                core.probeStartedAt = now
                return .probe
            }
        }
        if let transition { onTransition(transition) }
        return admission
    }

    /// Records how a request sent at or before `now` ended.
    func record(success: Bool, now: ContinuousClock.Instant) {
        var transition: Transition?
        core.withLock { core in
            switch core.state {
            case .halfOpen:
                if success {
                    core = Core()
                    core.closedAt = now
                    transition = .closed
                } else {
                    core.state = .open
                    core.openedAt = now
                    core.probeStartedAt = nil
                    transition = .reopened
                }
            case .open:
                // An answer to a request sent before it opened: nothing to decide.
                break
            case .closed:
                count(&core, success: success, now: now)
                core.consecutiveFailures = success ? 0 : core.consecutiveFailures + 1
                if let reason = openingReason(core) {
                    core.state = .open
                    core.openedAt = now
                    core.consecutiveFailures = 0
                    core.slices = []
                    transition = .opened(reason: reason)
                }
            }
        }
        if let transition { onTransition(transition) }
    }

    private func count(_ core: inout Core, success: Bool, now: ContinuousClock.Instant) {
        let slice = settings.window / Self.buckets
        let origin = core.origin ?? now
        core.origin = origin
        let index = max(0, Int64((now - origin) / slice))
        core.slices.removeAll { $0.index <= index - Int64(Self.buckets) }
        if let last = core.slices.indices.last, core.slices[last].index == index {
            if success { core.slices[last].successes += 1 } else { core.slices[last].failures += 1 }
        } else {
            core.slices.append((index, success ? 1 : 0, success ? 0 : 1))
        }
    }

    private func openingReason(_ core: Core) -> String? {
        if settings.failures > 0, core.consecutiveFailures >= settings.failures {
            return "\(core.consecutiveFailures) failures in a row"
        }
        let failures = core.slices.reduce(0) { $0 + $1.failures }
        let total = core.slices.reduce(0) { $0 + $1.successes + $1.failures }
        guard total >= settings.minimumRequests, total > 0, Double(failures) / Double(total) >= settings.ratio else { return nil }
        return "\(failures) of \(total) requests failed in \(settings.window)"
    }
}

extension CircuitBreaker {
    /// Sends `request` through `origin` and records how it ended (an overloaded local queue
    /// says nothing about the origin and is not recorded). Call on `origin`'s loop, after
    /// ``admit(now:)`` let the request go.
    func send(
        _ request: OriginRequest, via origin: any OriginSending, to endpoint: OriginEndpoint,
        completion: @escaping (Result<OriginResponse, OriginFailure>) -> Void
    ) {
        origin.send(request, to: endpoint) { [self] result in
            switch result {
            case .failure(.overloaded): break
            case .failure: record(success: false, now: .now)
            case .success(let response): record(success: response.status < 500, now: .now)
            }
            completion(result)
        }
    }

    /// The answer while the breaker keeps requests from its upstream: 503
    /// `…:origin-unavailable` with `Retry-After`, and `detail` (by default the origin's: nothing
    /// was sent, so a write may be retried safely).
    func refusal(retryAfter: Duration, detail: String = CircuitBreaker.originRefusal) -> GatewayError {
        GatewayError(status: 503, type: GatewayError.typePrefix + "origin-unavailable", title: "Service Unavailable", detail: detail)
            .retryingAfter(retryAfter)
    }

    static let originRefusal =
        "The origin is failing, so the gateway is leaving it alone for a moment: nothing was sent to it. Retry after Retry-After seconds."
    static let imageHostRefusal = "The image's server is failing, so the gateway is leaving it alone for a moment. Retry after Retry-After seconds."
}
