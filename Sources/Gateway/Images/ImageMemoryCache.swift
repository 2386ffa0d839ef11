import GatewayModels
import GatewaySupport

/// The memory tier: rendered images by variant, least recently used out first once
/// `budget` bytes are held. Shared by every loop; one short lock per lookup or store.
final class ImageMemoryCache: Sendable {
    private let state: Locked<LRUStore<ImageVariant, CachedPage>>

    init(budget: Int) {
        state = Locked(LRUStore(budget: budget))
    }

    func get(_ variant: ImageVariant) -> CachedPage? {
        state.withLock { $0.get(variant) }
    }

    /// Stores `image`; returns how many other entries were evicted.
    @discardableResult
    func store(_ image: CachedPage, for variant: ImageVariant) -> Int {
        state.withLock { $0.set(variant, image, cost: image.cost) }
    }

    /// Drops every image; returns how many there were.
    func removeAll() -> Int {
        state.withLock { $0.removeAll { _ in true } }
    }

    /// Bytes held, as charged against the budget.
    var bytes: Int { state.withLock { $0.totalCost } }
    var count: Int { state.withLock { $0.count } }
}
