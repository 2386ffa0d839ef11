import GatewayModels
import HTTPInterface
import Routing
import GatewaySupport

/// `Idempotency-Key` records in this process only (no `--redis-url`): ``IdempotencyStore``,
/// with the wait for a running request bounded.
final class LocalIdempotency: IdempotencyLedger {
    private let store: IdempotencyStore
    /// How long a retry waits for the running request with its key; then 409.
    let waitBound: Duration

    init(store: IdempotencyStore = IdempotencyStore(), waitBound: Duration) {
        self.store = store
        self.waitBound = waitBound
    }

    func claim(scope: String, fingerprint: String, context: RouteContext, completion: @escaping @Sendable (IdempotencyClaim) -> Void) {
        // Whichever comes first answers: the running request's response, or the bound.
        let answered = Locked(false)
        let once: @Sendable (IdempotencyClaim) -> Void = { claim in
            guard answered.withLock({ done in defer { done = true }; return !done }) else { return }
            completion(claim)
        }
        switch store.claim(scope, fingerprint: fingerprint, now: .now, waiter: { once(.replay($0)) }) {
        case .first: once(.first(IdempotencyTicket(scope: scope, fingerprint: fingerprint, token: "")))
        case .replay(let response): once(.replay(response))
        case .mismatch: once(.mismatch)
        case .waiting:
            guard let loop = context.origin?.loop else { return once(.inProgress) }
            loop.schedule(after: waitBound) { once(.inProgress) }
        }
    }

    func finish(_ ticket: IdempotencyTicket, response: GatewayResponse, context: RouteContext, then: @escaping @Sendable () -> Void) {
        store.finish(ticket.scope, response: response, now: .now)
        then()
    }

    func release(_ ticket: IdempotencyTicket, response: GatewayResponse, context: RouteContext) {
        store.release(ticket.scope, response: response)
    }
}
