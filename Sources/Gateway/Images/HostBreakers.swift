import GatewayModels
import GatewaySupport

/// One ``CircuitBreaker`` per image host and port (the origin's own included, apart from the
/// origin's breaker): a failing image host is left alone while the origin and other hosts
/// are asked as usual. At most `maxHosts` hosts are tracked (`--image-host` names few); past
/// that, closed breakers are forgotten first. Thread-safe.
final class HostBreakers: Sendable {
    let settings: BreakerConfiguration
    let maxHosts: Int
    private let breakers = Locked<[String: CircuitBreaker]>([:])
    private let onTransition: @Sendable (String, CircuitBreaker.Transition) -> Void

    init(
        settings: BreakerConfiguration, maxHosts: Int = 64,
        onTransition: @escaping @Sendable (String, CircuitBreaker.Transition) -> Void = { _, _ in }
    ) {
        self.settings = settings
        self.maxHosts = maxHosts
        self.onTransition = onTransition
    }

    /// The breaker of `host` (`name:port`, lowercased by the caller), made on first use.
    func breaker(for host: String) -> CircuitBreaker {
        breakers.withLock { breakers in
            if let breaker = breakers[host] { return breaker }
            if breakers.count >= maxHosts {
                breakers = breakers.filter { $0.value.state != .closed }
                if breakers.count >= maxHosts, let any = breakers.keys.first { breakers[any] = nil }
            }
            let onTransition = self.onTransition
            let breaker = CircuitBreaker(name: host, settings: settings) { transition in onTransition(host, transition) }
            breakers[host] = breaker
            return breaker
        }
    }

    /// How many hosts' breakers are open or half-open now (the metrics' gauge).
    var notClosedCount: Int {
        breakers.withLock { $0.values.count(where: { $0.state != .closed }) }
    }

    /// The state of `host`'s breaker, if it has one (tests, readiness).
    func state(of host: String) -> CircuitBreaker.State? {
        breakers.withLock { $0[host]?.state }
    }
}
