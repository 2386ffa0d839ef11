import GatewayModels

/// The memory tier: verified images by origin URL, least recently used out first once
/// `budget` bytes are held. Shared by every loop; one short lock per lookup or store.
final class ImageMemoryCache: Sendable {
    private let state: Locked<LRUStore<String, CachedPage>>

    init(budget: Int) {
        state = Locked(LRUStore(budget: budget))
    }

    func get(_ url: String) -> CachedPage? {
        state.withLock { $0.get(url) }
    }

    /// Stores `image`; returns how many other entries were evicted.
    @discardableResult
    func store(_ image: CachedPage, for url: String) -> Int {
        state.withLock { $0.set(url, image, cost: image.cost) }
    }

    /// Bytes held, as charged against the budget.
    var bytes: Int { state.withLock { $0.totalCost } }
    var count: Int { state.withLock { $0.count } }
}
