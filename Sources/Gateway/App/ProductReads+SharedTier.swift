import GatewayModels
import HTTPInterface
import Routing

/// One leader's fetch of a page through the replicas' shared tier (see ``SharedPages``), as
/// named steps instead of nested callbacks: look the page up in Redis; fresh there, it is
/// this replica's too; missing, one replica (the lock's holder) fetches it from the origin
/// and shares it, and the others wait for its entry (or fetch themselves when it does not
/// come); Redis unavailable, the origin is asked directly. A `capped` refresh (the origin
/// recovers: ``ProductReads/capsRefresh(_:now:)``) takes its lock only with one of the
/// replicas' recovery slots (``SharedPages/lockWithinSlots(_:version:slots:redis:completion:)``),
/// and without one ends `.deferred`.
///
/// Each step runs on the loop of `redis` (Redis' answers arrive there) or, after the
/// origin, on whichever thread finishes the fetch; `finish` runs once.
struct SharedTierFetch: Sendable {
    let reads: ProductReads
    let shared: SharedPages
    let redis: any RedisCommanding
    let names: SharedPages.PageNames
    let kind: ProductReads.Kind
    let key: PageCacheKey
    let locale: ClientLocale
    let request: GatewayRequest
    let context: RouteContext
    /// The L1 generation when the fetch began.
    let generation: Int
    /// A refresh of a stored page while the origin recovers: it goes to the origin only with
    /// one of the replicas' ``ProductReads/recoveryRefreshes`` slots.
    let capped: Bool
    let finish: @Sendable (ProductReads.Outcome) -> Void

    func start() {
        shared.lookup(names, redis: redis) { found in looked(found) }
    }

    private func looked(_ found: SharedPages.Lookup) {
        switch found {
        case .fresh(let entry): fromShared(entry)
        case .unavailable: fromOrigin(finish)
        case .miss(_, let stale, let backoff?):
            // Another replica's fetch failed lately: back off here too, and answer as it did.
            heldByReplica(backoff, stale: stale)
        case .miss(let version, let stale, nil) where capped:
            lockWithinSlots(version: version, stale: stale, waited: false)
        case .miss(let version, let stale, nil):
            shared.lock(names, version: version, redis: redis) { mine in locked(mine, version: version, stale: stale) }
        }
    }

    private func heldByReplica(_ backoff: SharedBackoff, stale: SharedPageRecord.Entry?) {
        let now = ContinuousClock.now
        let originKey = ProductReads.originKey(key)
        reads.backoff.adopt(originKey, until: now + backoff.left, error: backoff.error, originStatus: backoff.originStatus)
        reads.metrics.originBackoff("held")
        finish(.failure(backoff.error.retryingAfter(backoff.left), originStatus: backoff.originStatus, fallback: stale?.page))
    }

    /// A capped refresh: fetches only with the lock and one of the replicas' slots. When
    /// another replica holds the lock, waits for its entry; if none comes, tries once more
    /// (`waited`), and defers rather than fetch without a slot.
    private func lockWithinSlots(version: String, stale: SharedPageRecord.Entry?, waited: Bool) {
        shared.lockWithinSlots(names, version: version, slots: ProductReads.recoveryRefreshes, redis: redis) { taken in
            switch taken {
            case .mine: fetchAndShare(version: version, stale: stale, slot: true, lockEnds: .now + shared.lockTime)
            case .unsure: fetchAndShare(version: version, stale: stale, lockEnds: .now + shared.lockTime)
            case .held where !waited:
                waitForHolder(version: version, stale: stale) { lockWithinSlots(version: version, stale: stale, waited: true) }
            case .held, .full:
                reads.metrics.cacheEvent("refresh_deferred", cache: SharedPages.metricName)
                finish(.deferred(fallback: stale?.page))
            }
        }
    }

    /// One replica fetches; the others wait for its entry, then fetch themselves.
    private func locked(_ mine: Bool, version: String, stale: SharedPageRecord.Entry?) {
        // Taken (or unsure: the primary may have stored it and failed before answering).
        if mine { return fetchAndShare(version: version, stale: stale, lockEnds: .now + shared.lockTime) }
        waitForHolder(version: version, stale: stale) { fetchAndShare(version: version, stale: stale, lockEnds: .now) }
    }

    /// Waits for the entry of the replica holding the lock: its page, or its failure's
    /// backoff, is this fetch's outcome; `otherwise` runs when neither comes in time.
    private func waitForHolder(version: String, stale: SharedPageRecord.Entry?, otherwise: @escaping @Sendable () -> Void) {
        shared.waitForEntry(names, version: version, until: .now + shared.waitBound, redis: redis) { waited in
            switch waited {
            case .entry(let entry): fromShared(entry)
            case .backoff(let backoff): heldByReplica(backoff, stale: stale)
            case .nothing: otherwise()
            }
        }
    }

    /// From the origin, then into the shared tier (the lock released either way, and with
    /// `slot` the recovery slot taken with it). `lockEnds`: when the lock this replica took
    /// runs out (now when it took none); until then the entry and the release are sent again
    /// while Redis cannot be reached, so a failover in the middle of the fetch does not leave
    /// the other replicas waiting out the lock.
    private func fetchAndShare(version: String, stale: SharedPageRecord.Entry?, slot: Bool = false, lockEnds: ContinuousClock.Instant) {
        fromOrigin { outcome in shared(outcome, version: version, stale: stale, slot: slot, lockEnds: lockEnds) }
    }

    private func shared(_ outcome: ProductReads.Outcome, version: String, stale: SharedPageRecord.Entry?, slot: Bool, lockEnds: ContinuousClock.Instant) {
        let (shared, names, redis) = (self.shared, self.names, self.redis)
        switch outcome {
        case .page(let page, let hasNextPage, _):
            redis.loop.execute {
                shared.store(page, hasNextPage: hasNextPage, names: names, version: version, redis: redis, retryingUntil: lockEnds) {
                    shared.unlock(names, version: version, redis: redis, slot: slot, retryingUntil: lockEnds)
                }
            }
            finish(.page(page, hasNextPage: hasNextPage, tier: .origin(sharedConsulted: true)))
        case .failure(let error, let originStatus, _):
            // A failure that started a backoff here is shared, so other replicas do not retry.
            let now = ContinuousClock.now
            let held = ProductReads.startsBackoff(error: error, originStatus: originStatus)
                ? reads.backoff.blocked(ProductReads.originKey(key), now: now) : nil
            redis.loop.execute {
                guard let held else { return shared.unlock(names, version: version, redis: redis, slot: slot, retryingUntil: lockEnds) }
                shared.backOff(
                    names, version: version, SharedBackoff(status: error.status, originStatus: originStatus, left: held.until - now), redis: redis,
                    slot: slot)
            }
            finish(.failure(error, originStatus: originStatus, fallback: stale?.page))
        case .deferred:
            // The origin fetch never defers; kept whole for the compiler.
            redis.loop.execute { shared.unlock(names, version: version, redis: redis, slot: slot) }
            finish(outcome)
        }
    }

    /// A page of the shared tier: into L1, and to every waiter.
    private func fromShared(_ entry: SharedPageRecord.Entry) {
        reads.storeCounting(entry.page, key, generation: generation)
        finish(.page(entry.page, hasNextPage: entry.hasNextPage, tier: .shared))
    }

    private func fromOrigin(_ completion: @escaping @Sendable (ProductReads.Outcome) -> Void) {
        reads.fetchFromOrigin(kind, key: key, locale: locale, request: request, context: context, generation: generation, completion: completion)
    }
}
