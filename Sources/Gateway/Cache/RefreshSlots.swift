import GatewayModels
import GatewaySupport

/// A few slots for refreshing stored pages while the origin recovers (issue 29): a refresh
/// takes one or does not happen now (the stored page is served, and a later read tries
/// again), so that after an outage stale keys are refreshed as they are read, `limit` at a
/// time, not all in the first second. Thread-safe.
final class RefreshSlots: Sendable {
    let limit: Int
    private let taken = Locked(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// Takes a slot if one is free.
    func take() -> Bool {
        taken.withLock { taken in
            guard taken < limit else { return false }
            taken += 1
            return true
        }
    }

    /// Gives back a slot ``take()`` gave.
    func give() {
        taken.withLock { $0 = max(0, $0 - 1) }
    }

    var inUse: Int { taken.withLock { $0 } }
}
