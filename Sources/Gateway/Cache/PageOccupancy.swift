import Synchronization

/// How many items list pages held when the origin last answered for them, so a page's
/// `hasNextPage` can say what the next page really holds rather than guess from a full
/// page. Thread-safe; bounded (the oldest knowledge is forgotten first).
final class PageOccupancy: Sendable {
    private struct State {
        var known: [Int: Int] = [:]
        var order: [Int] = []
    }

    private let state = Mutex(State())
    private let limit: Int

    init(limit: Int = 10_000) {
        self.limit = limit
    }

    /// The items `page` held, when known.
    func itemCount(_ page: Int) -> Int? {
        state.withLock { $0.known[page] }
    }

    /// Records how many items `page` held; returns the previous count.
    @discardableResult
    func record(_ page: Int, itemCount: Int) -> Int? {
        state.withLock { state in
            let previous = state.known.updateValue(itemCount, forKey: page)
            if previous == nil {
                state.order.append(page)
                if state.order.count > limit { state.known[state.order.removeFirst()] = nil }
            }
            return previous
        }
    }

    /// Forgets everything (after a write changed the catalogue).
    func reset() {
        state.withLock { $0 = State() }
    }
}
