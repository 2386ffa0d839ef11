import GatewayModels
import Synchronization

/// v1 origin list pages (`GET /items/{n}`) as the origin last answered them, decoded, so that
/// contract pages of any `pageSize` can be assembled from them and the read-ahead page that
/// tells one page's `hasNextPage` serves the next scroll too. Locale-independent.
/// Thread-safe; bounded by count (least recently used out first).
final class V1OriginPages: Sendable {
    private struct Entry: Sendable {
        var page: V1ItemsPage
        var storedAt: ContinuousClock.Instant
    }

    private let state: Mutex<LRUStore<Int, Entry>>
    private let timeToLive: Duration

    init(timeToLive: Duration, capacity: Int = 2_048) {
        self.timeToLive = timeToLive
        state = Mutex(LRUStore(budget: capacity))
    }

    /// Origin page `number` while younger than the list time to live.
    func lookup(_ number: Int, now: ContinuousClock.Instant) -> V1ItemsPage? {
        state.withLock { store in
            guard let entry = store.get(number) else { return nil }
            guard now - entry.storedAt < timeToLive else {
                store.remove(number)
                return nil
            }
            return entry.page
        }
    }

    func store(_ page: V1ItemsPage, number: Int, now: ContinuousClock.Instant) {
        state.withLock { _ = $0.set(number, Entry(page: page, storedAt: now), cost: 1) }
    }

    func removeAll() {
        state.withLock { _ = $0.removeAll { _ in true } }
    }
}
