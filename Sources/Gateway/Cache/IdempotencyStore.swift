import GatewayModels
import HTTPInterface
import GatewaySupport

/// Remembers, per `Idempotency-Key`, the request a key was first used with and the response
/// it got, for `retention` (24 hours by default), so a client retrying a create after a lost
/// response gets the first response again instead of a second product. Thread-safe;
/// bounded: at most `limit` keys (10,000 by default, a few kilobytes each), the oldest
/// forgotten first.
final class IdempotencyStore: Sendable {
    /// What a key's first use became.
    enum Claim: Sendable {
        /// The key is new: the caller does the work and must call `finish` (or `release`).
        case first
        /// The key finished with this response for the same request: replay it.
        case replay(GatewayResponse)
        /// The key was first used with a different request.
        case mismatch
        /// The first request with this key is still running; `waiter` will get its response.
        case waiting
    }

    private enum Entry {
        case running(fingerprint: String, waiters: [@Sendable (GatewayResponse) -> Void])
        case finished(fingerprint: String, response: GatewayResponse, expires: ContinuousClock.Instant)
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var order: [String] = []
    }

    private let state = Locked(State())
    private let retention: Duration
    private let limit: Int

    init(retention: Duration = .seconds(24 * 3600), limit: Int = 10_000) {
        self.retention = retention
        self.limit = limit
    }

    /// Claims `key` for a request identified by `fingerprint` (method, path and body).
    /// `waiter` is used only for `.waiting`.
    func claim(_ key: String, fingerprint: String, now: ContinuousClock.Instant, waiter: @escaping @Sendable (GatewayResponse) -> Void)
        -> Claim
    {
        state.withLock { state in
            switch state.entries[key] {
            case .running(let first, var waiters):
                guard first == fingerprint else { return .mismatch }
                waiters.append(waiter)
                state.entries[key] = .running(fingerprint: first, waiters: waiters)
                return .waiting
            case .finished(let first, let response, let expires) where expires > now:
                return first == fingerprint ? .replay(response) : .mismatch
            case .finished, nil:
                if state.entries[key] == nil {
                    state.order.append(key)
                    Self.evictFinished(&state, limit: limit)
                }
                state.entries[key] = .running(fingerprint: fingerprint, waiters: [])
                return .first
            }
        }
    }

    /// Forgets the oldest finished keys past `limit`. Running keys are never forgotten (their
    /// waiters need the answer), so the store may briefly hold more than `limit` of them.
    private static func evictFinished(_ state: inout State, limit: Int) {
        var index = 0
        while state.order.count > limit && index < state.order.count {
            let key = state.order[index]
            if case .running = state.entries[key] {
                index += 1
            } else {
                state.order.remove(at: index)
                state.entries[key] = nil
            }
        }
    }

    /// Stores the response of `key`'s first request and hands it to the requests waiting.
    func finish(_ key: String, response: GatewayResponse, now: ContinuousClock.Instant) {
        let waiters = state.withLock { state -> [@Sendable (GatewayResponse) -> Void] in
            guard case .running(let fingerprint, let waiters) = state.entries[key] else { return [] }
            state.entries[key] = .finished(fingerprint: fingerprint, response: response, expires: now + retention)
            return waiters
        }
        for waiter in waiters { waiter(response) }
    }

    /// Forgets `key` (its request never reached the origin, so a retry may run afresh) and
    /// answers the requests waiting on it with `response`.
    func release(_ key: String, response: GatewayResponse) {
        let waiters = state.withLock { state -> [@Sendable (GatewayResponse) -> Void] in
            guard case .running(_, let waiters) = state.entries.removeValue(forKey: key) else { return [] }
            state.order.removeAll { $0 == key }
            return waiters
        }
        for waiter in waiters { waiter(response) }
    }
}
