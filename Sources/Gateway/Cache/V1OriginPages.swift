import GatewayModels
import GatewaySupport

/// v1 origin list pages (`GET /items/{n}`) as the origin last answered them, decoded, so that
/// contract pages of any `pageSize` can be assembled from them and the read-ahead page that
/// tells one page's `hasNextPage` serves the next scroll too. Locale-independent.
///
/// Kept for a short ``maxAge`` only: a contract page joins origin pages, and pages read far
/// apart in time may disagree where they meet (an item written meanwhile shifts the list).
/// Thread-safe; bounded by count (least recently used out first).
final class V1OriginPages: Sendable {
    struct Entry: Sendable {
        var page: V1ItemsPage
        var storedAt: ContinuousClock.Instant
    }

    private struct State {
        var store: LRUStore<Int, Entry>
        /// Bumped by ``removeAll()``, under the same lock as the stores.
        var generation = 0
    }

    private let state: Locked<State>
    /// How long an origin page is reused.
    let maxAge: Duration

    init(maxAge: Duration, capacity: Int = 2_048) {
        self.maxAge = maxAge
        state = Locked(State(store: LRUStore(budget: capacity)))
    }

    /// The generation now: take it before fetching what will be stored.
    var generation: Int { state.withLock { $0.generation } }

    /// Origin page `number` while younger than ``maxAge``.
    func lookup(_ number: Int, now: ContinuousClock.Instant) -> Entry? {
        state.withLock { state in
            guard let entry = state.store.get(number) else { return nil }
            guard now - entry.storedAt < maxAge else {
                state.store.remove(number)
                return nil
            }
            return entry
        }
    }

    /// Stores `entry` unless ``removeAll()`` ran since `generation` was read.
    func store(_ entry: Entry, number: Int, ifGeneration generation: Int) {
        state.withLock { state in
            guard state.generation == generation else { return }
            _ = state.store.set(number, entry, cost: 1)
        }
    }

    func removeAll() {
        state.withLock { state in
            state.generation += 1
            _ = state.store.removeAll { _ in true }
        }
    }
}
