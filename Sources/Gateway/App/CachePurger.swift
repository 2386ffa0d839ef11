import GatewayModels
import HTTPInterface
import GatewaySupport

/// Drops cached pages and images when an operator asks (`POST /admin/purge`) and when
/// another replica says so, and hears every other replica message for the read path.
///
/// With the shared tier, a purge moves its versions on in Redis and publishes the purge on
/// the replicas' channel; every replica (this one too, hearing it back) drops the same
/// entries from its own tiers.
public final class CachePurger: Sendable {
    let reads: ProductReads
    let images: ImageReads

    /// What one replica dropped.
    struct Dropped: Sendable, Equatable {
        var pages: Int
        var images: Int
    }

    /// Whether the shared tier and the other replicas were told.
    enum SharedOutcome: String, Sendable {
        /// Redis purged its entries and the message went out.
        case purged
        /// Without `--redis-url`: this process is the only one.
        case off
        /// Redis could not be reached: only this replica purged.
        case failed
    }

    init(reads: ProductReads, images: ImageReads) {
        self.reads = reads
        self.images = images
    }

    /// Drops `scope` from this process's tiers (disk on its queue); `completion` gets the
    /// counts, on any thread.
    func purgeHere(_ scope: PurgeScope, completion: @escaping @Sendable (Dropped) -> Void) {
        let pages = reads.purge(scope)
        guard scope == .all else { return completion(Dropped(pages: pages, images: 0)) }
        images.purge { count in completion(Dropped(pages: pages, images: count)) }
    }

    /// ``purgeHere(_:completion:)``, then (with `redis`, the loop's connection) the shared
    /// tier and every replica. This process drops first, so the count is its own (its
    /// message, heard back, finds nothing more); a fetch that began before stores nothing in
    /// L1 (the page cache's generation moved on) and stores in Redis only under the old
    /// version. On the loop that owns `redis`; `completion` on any thread.
    func purge(_ scope: PurgeScope, redis: (any RedisCommanding)?, completion: @escaping @Sendable (Dropped, SharedOutcome) -> Void) {
        guard let shared = reads.shared, let redis else {
            return purgeHere(scope) { completion($0, .off) }
        }
        // Both halves run at once; whichever ends second answers, once.
        let halves = Locked<(dropped: Dropped?, outcome: SharedOutcome?)>((nil, nil))
        @Sendable func finish(_ update: (inout (dropped: Dropped?, outcome: SharedOutcome?)) -> Void) {
            let both: (Dropped, SharedOutcome)? = halves.withLock { halves in
                update(&halves)
                guard let dropped = halves.dropped, let outcome = halves.outcome else { return nil }
                return (dropped, outcome)
            }
            if let both { completion(both.0, both.1) }
        }
        purgeHere(scope) { dropped in finish { $0.dropped = dropped } }
        shared.purge(scope, redis: redis) { done in finish { $0.outcome = done ? .purged : .failed } }
    }
}

extension CachePurger: ReplicaListener {
    public var channel: String { reads.shared?.channel ?? "" }

    /// Another replica's write or purge (or this one's, heard back): drop what it made
    /// untrue.
    public func replicaMessage(_ payload: [UInt8]) {
        switch SharedPages.message(payload) {
        case .invalidate(let id)?: reads.invalidate(productID: id)
        case .purge(let scope)?: purgeHere(scope) { _ in }
        case .heartbeat?, nil: break
        }
    }

    public func replicaLink(up: Bool) {
        reads.replicaLink(up: up)
    }
}
