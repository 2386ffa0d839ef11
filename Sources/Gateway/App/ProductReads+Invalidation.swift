import BodyCompression
import Dispatch
import GatewayModels
import HTTPInterface
import Observability
import Routing

/// What writes, purges and the replicas' link drop from the read path's caches.
extension ProductReads {
    /// Drops what a write to product `id` (nil: a new product) may have made untrue: its
    /// details in every locale, every list page, and the v1 origin pages. Fetches that began
    /// before store nothing, and later requests do not join them.
    public func invalidate(productID id: Int64?) {
        cache.remove { key in key.route == .list || (key.route == .detail && key.number == id) }
        v1Pages.removeAll()
    }

    /// ``invalidate(productID:)``, and with the shared tier, for every replica: the versions
    /// of the lists and of the product move on in Redis and every replica is told. `done`
    /// runs once Redis has done it or could not (then it is tried again in the background for
    /// as long as a page may stay fresh). On the request's loop.
    func invalidate(productID id: Int64?, context: RouteContext, then done: @escaping @Sendable () -> Void) {
        invalidate(productID: id)
        guard let shared, let redis = context.redis else { return done() }
        let retryUntil = ContinuousClock.now + max(configuration.listTimeToLive, configuration.detailTimeToLive) + .seconds(5)
        shared.invalidate(productID: id, redis: redis, retryingUntil: retryUntil) { done() }
    }

    /// Drops this process's pages that `scope` names (the details of the products and every
    /// list page, or every page); returns how many. Any thread.
    func purge(_ scope: PurgeScope) -> Int {
        v1Pages.removeAll()
        switch scope {
        case .products(let ids):
            return cache.remove { key in key.route == .list || (key.route == .detail && ids.contains(key.number)) }
        case .pages, .all:
            return cache.remove { _ in true }
        }
    }

    /// Lost: writes may go unheard, so every L1 page is revalidated before it is served
    /// again, and new ones stay fresh only briefly. Back: what was cached meanwhile is
    /// revalidated too, and pages keep their times again. A page revalidated this way says
    /// `detail=revalidate-after-gap` in `Cache-Status`; if the origin fails meanwhile it is
    /// served stale, as any expired page.
    func replicaLink(up: Bool) {
        cache.setFreshnessCap(up ? nil : Self.unlinkedFreshness)
        cache.markForRevalidation(at: .now)
        v1Pages.removeAll()
    }
}
