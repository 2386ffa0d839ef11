import Foundation
import GatewayModels
import HTTPInterface
import Observability

/// The shared page tier (L2): contract pages in the replicas' Redis, asked after this
/// process's page cache (L1) misses and before the origin.
///
/// Keys are versioned: every list page is stored under the current *lists version*, every
/// detail under its product's version (`<prefix>v:lists`, `<prefix>v:p:<id>`, counters in
/// Redis). A write increments them (``invalidate(productID:redis:completion:)``), so every
/// replica's next read of that product or of any list misses at once; what was stored under
/// an older version is never read again and expires. A page fetched while a write happened
/// is stored under the version read before the fetch, where nobody looks. The same script
/// publishes the write on ``channel`` so replicas drop their L1 pages too.
///
/// Concurrent misses for one key across replicas make one origin request: the first takes a
/// short lock (`SET NX PX`); the others poll for its entry, with a bound, then go to the
/// origin themselves. Everything fails open: a Redis error, a timeout or an open breaker is a
/// miss (counted), never an error for the client.
///
/// Called on the loop that owns `redis`; completions run there.
final class SharedPages: Sendable {
    /// `omg:<16 hex digits>:`.
    let prefix: String
    /// Where writes are announced to every replica.
    let channel: String
    let staleIfError: Duration
    /// How long the lock of one fetch lasts (the origin's connect and request timeouts).
    let lockTime: Duration
    /// How long a replica that did not get the lock waits for the entry.
    let waitBound: Duration
    static let pollInterval: Duration = .milliseconds(20)
    let metrics: GatewayMetrics

    init(prefix: String, staleIfError: Duration, lockTime: Duration, waitBound: Duration, metrics: GatewayMetrics) {
        self.prefix = prefix
        channel = prefix + "events"
        self.staleIfError = staleIfError
        self.lockTime = lockTime
        self.waitBound = waitBound
        self.metrics = metrics
    }

    /// What the shared tier has for a key.
    enum Lookup: Sendable {
        /// A fresh entry: serve it.
        case fresh(SharedPageRecord.Entry)
        /// No fresh entry. A page fetched now is stored under `version`; `stale` is an older
        /// entry still inside the stale-if-error window, to serve if the origin fails;
        /// `backoff`: a replica's fetch of it failed lately and it backs off (see
        /// ``SharedBackoff``).
        case miss(version: String, stale: SharedPageRecord.Entry?, backoff: SharedBackoff? = nil)
        /// Redis could not be asked: go to the origin, store nothing in the shared tier.
        case unavailable
    }

    /// KEYS[1] the version counter, KEYS[2] the purge epoch (which `POST /admin/purge` of
    /// every page moves on); ARGV the entry key's prefix and suffix. Answers the version
    /// (`<epoch>.<counter>`), the entry stored under it (or nil), and its backoff marker (or
    /// nil) with the milliseconds it has left.
    static let readScript = """
        local v = (redis.call('GET', KEYS[2]) or '0') .. '.' .. (redis.call('GET', KEYS[1]) or '0')
        local entry = ARGV[1] .. v .. ARGV[2]
        return {v, redis.call('GET', entry), redis.call('GET', entry .. ':backoff'), redis.call('PTTL', entry .. ':backoff')}
        """
    /// KEYS the version counters to increment; ARGV the channel and the message to publish.
    static let invalidateScript = """
        for _, key in ipairs(KEYS) do redis.call('INCR', key) end
        redis.call('PUBLISH', ARGV[1], ARGV[2])
        return 1
        """

    /// The Redis names of one page, made once per fetch (a SHA-256 of its cache key).
    struct PageNames: Sendable {
        /// The counter whose value the entry is stored under.
        let version: String
        /// The entry under version `v` is `before + v + after`.
        let before: String
        let after: String

        func entry(_ version: String) -> String { before + version + after }
        func lock(_ version: String) -> String { entry(version) + ":lock" }
    }

    /// `<prefix>v:lists` or `<prefix>v:p:<id>`, and `<prefix>page:<version>:<digest of the key>`.
    func names(_ key: PageCacheKey) -> PageNames {
        PageNames(
            version: key.route == .list ? listsVersion : productVersion(key.number), before: prefix + "page:",
            after: ":" + ReplicaNamespace.digest([Array(key.description.utf8)]).prefix(32))
    }

    /// The version every list page is stored under, and one product's details.
    private var listsVersion: String { prefix + "v:lists" }
    /// Moved on by a purge of every page: every entry's name changes at once.
    var epochKey: String { prefix + "v:epoch" }
    private func productVersion(_ id: Int64) -> String { prefix + "v:p:\(id)" }

    func lookup(_ names: PageNames, redis: any RedisCommanding, completion: @escaping (Lookup) -> Void) {
        let started = ContinuousClock.now
        redis.send([
            Array("EVAL".utf8), Array(Self.readScript.utf8), Array("2".utf8), Array(names.version.utf8), Array(epochKey.utf8),
            Array(names.before.utf8),
            Array(names.after.utf8),
        ]) {
            [self] result in
            metrics.sharedTierLatency(ContinuousClock.now - started)
            let (lookup, event) = Self.reading(result, staleIfError: staleIfError)
            metrics.cacheEvent(event, cache: Self.metricName)
            completion(lookup)
        }
    }

    /// Reads the answer of ``readScript``, and names the cache event it counts as (`hit`,
    /// `miss`, `stale`: an entry past its freshness, `error`: no usable answer). An entry that
    /// cannot be decoded is a miss: it is overwritten by the next fetch.
    static func reading(
        _ result: Result<RedisReply, RedisFailure>, staleIfError: Duration, now: ContinuousClock.Instant = .now, wallNow: Date = Date()
    ) -> (Lookup, event: String) {
        guard case .success(.array(let parts)) = result, parts.count == 2 || parts.count == 4, let version = parts[0].text else {
            return (.unavailable, "error")
        }
        let backoff = parts.count == 4 ? SharedBackoff(marker: parts[2].text, millisecondsLeft: parts[3]) : nil
        guard let bytes = parts[1].bytes, let entry = SharedPageRecord.decode(bytes, now: now, wallNow: wallNow) else {
            return (.miss(version: version, stale: nil, backoff: backoff), "miss")
        }
        let age = now - entry.page.storedAt
        if age < entry.page.timeToLive { return (.fresh(entry), "hit") }
        return (.miss(version: version, stale: age < entry.page.timeToLive + staleIfError ? entry : nil, backoff: backoff), "stale")
    }

    /// Tells every replica that the fetch of `names` under `version` failed and backs off for
    /// `backoff`'s time, so none of them asks the origin for it before then; and frees the
    /// lock (and, with `slot`, its recovery slot). Failures are not reported: each replica
    /// still has its own backoff.
    func backOff(_ names: PageNames, version: String, _ backoff: SharedBackoff, redis: any RedisCommanding, slot: Bool = false) {
        redis.send([Array("SET".utf8), Array((names.entry(version) + ":backoff").utf8), Array(backoff.marker.utf8), Array("PX".utf8),
            backoff.left.redisMilliseconds]) { _ in }
        unlock(names, version: version, redis: redis, slot: slot)
    }

    /// Takes the lock of one fetch of `key` under `version`; true when this replica should
    /// fetch (it got the lock, or Redis could not say).
    func lock(_ names: PageNames, version: String, redis: any RedisCommanding, completion: @escaping (Bool) -> Void) {
        redis.send([Array("SET".utf8), Array(names.lock(version).utf8), Array("1".utf8), Array("NX".utf8), Array("PX".utf8),
            lockTime.redisMilliseconds]) { result in
            completion(Self.shouldFetch(result))
        }
    }

    /// Reads the answer of the lock's `SET NX`: only a nil reply (another replica holds the
    /// lock) means wait; an error or a timeout means fetch, as without Redis.
    static func shouldFetch(_ result: Result<RedisReply, RedisFailure>) -> Bool {
        if case .success(.null) = result { return false }
        return true
    }

    /// What taking a fetch's lock within the replicas' recovery slots gave.
    enum SlotLock: Equatable, Sendable {
        /// This replica took the lock and a slot: fetch, then free both
        /// (``unlock(_:version:redis:slot:)`` with `slot`).
        case mine
        /// Another replica fetches this page: wait for its entry, as after a lock not taken.
        case held
        /// Every slot is taken: nothing is fetched now; a later read refreshes it.
        case full
        /// Redis could not say (an error, a time-out): fetch, as without Redis, holding no
        /// slot to free (this replica's own slots still bound it).
        case unsure
    }

    /// Where the replicas' recovery slots are kept: a sorted set of the locks holding one,
    /// each scored with the Redis time (ms) its lock runs out, so a slot whose replica died
    /// frees itself with the lock.
    var refreshSlotsKey: String { prefix + "refresh-slots" }

    /// KEYS[1] the fetch's lock, KEYS[2] the slots; ARGV[1] the lock's milliseconds, ARGV[2]
    /// how many slots there are. Answers 1 (lock and slot taken), 0 (the lock is another's),
    /// -1 (no slot free). Slots past their time are dropped first, by Redis' own clock (the
    /// replicas' clocks may differ; `TIME` before a write needs Redis 5 or newer, and an
    /// older one's error reads as ``SlotLock/unsure``). The set lives as long as its
    /// longest slot.
    static let slotLockScript = """
        local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
        redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
        if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
        if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return -1 end
        redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
        redis.call('ZADD', KEYS[2], now + tonumber(ARGV[1]), KEYS[1])
        if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[2], ARGV[1]) end
        return 1
        """
    /// KEYS[1] the fetch's lock, KEYS[2] the slots: frees both.
    static let slotUnlockScript = """
        redis.call('DEL', KEYS[1])
        redis.call('ZREM', KEYS[2], KEYS[1])
        return 1
        """

    /// Takes the lock of one refresh of `names` under `version` only if one of the replicas'
    /// `slots` recovery slots is free too, so that after an outage the whole fleet refreshes
    /// stored pages `slots` at a time, not each replica its own few.
    func lockWithinSlots(
        _ names: PageNames, version: String, slots: Int, redis: any RedisCommanding, completion: @escaping (SlotLock) -> Void
    ) {
        redis.send([
            Array("EVAL".utf8), Array(Self.slotLockScript.utf8), Array("2".utf8), Array(names.lock(version).utf8),
            Array(refreshSlotsKey.utf8), lockTime.redisMilliseconds, Array(String(slots).utf8),
        ]) { result in
            completion(Self.slotLock(result))
        }
    }

    /// Reads the answer of ``slotLockScript``.
    static func slotLock(_ result: Result<RedisReply, RedisFailure>) -> SlotLock {
        switch result {
        case .success(.integer(1)): .mine
        case .success(.integer(0)): .held
        case .success(.integer(-1)): .full
        default: .unsure
        }
    }

    /// KEYS the entry and its lock. Answers the entry (or nil), whether the lock is held, and
    /// the entry's backoff marker (or nil) with the milliseconds it has left.
    static let pollScript = """
        local backoff = KEYS[1] .. ':backoff'
        return {redis.call('GET', KEYS[1]), redis.call('EXISTS', KEYS[2]), redis.call('GET', backoff), redis.call('PTTL', backoff)}
        """

    /// What waiting for another replica's fetch gave.
    enum Waited: Sendable {
        case entry(SharedPageRecord.Entry)
        /// That fetch failed, and the page backs off: answer as it did.
        case backoff(SharedBackoff)
        /// Nothing usable: fetch.
        case nothing
    }

    /// Polls for a fresh entry of `key` under `version` until `deadline`, or until the lock
    /// is gone without an entry (the fetching replica failed, and said whether the page now
    /// backs off).
    func waitForEntry(
        _ names: PageNames, version: String, until deadline: ContinuousClock.Instant, redis: any RedisCommanding,
        completion: @escaping @Sendable (Waited) -> Void
    ) {
        redis.send([Array("EVAL".utf8), Array(Self.pollScript.utf8), Array("2".utf8), Array(names.entry(version).utf8), Array(names.lock(version).utf8)]) {
            [self] result in
            switch Self.polled(result, until: deadline) {
            case .found(let entry):
                metrics.cacheEvent("hit_after_wait", cache: Self.metricName)
                completion(.entry(entry))
            case .again:
                redis.loop.schedule(after: Self.pollInterval) { [self] in
                    waitForEntry(names, version: version, until: deadline, redis: redis, completion: completion)
                }
            case .backedOff(let backoff):
                completion(.backoff(backoff))
            case .giveUp:
                completion(.nothing)
            }
        }
    }

    /// What one answer of ``pollScript`` means for a replica waiting for another's fetch.
    enum Poll: Equatable {
        /// The fetching replica stored a fresh entry.
        case found(SharedPageRecord.Entry)
        /// No entry yet and the lock is held: ask again after ``pollInterval``.
        case again
        /// The lock is gone without an entry: that fetch failed, and the page backs off.
        case backedOff(SharedBackoff)
        /// Go to the origin: the lock is gone without an entry or backoff (that fetch failed),
        /// the next poll would end past `deadline`, or Redis gave no usable answer.
        case giveUp
    }

    static func polled(
        _ result: Result<RedisReply, RedisFailure>, until deadline: ContinuousClock.Instant, now: ContinuousClock.Instant = .now,
        wallNow: Date = Date()
    ) -> Poll {
        guard case .success(.array(let parts)) = result, parts.count == 2 || parts.count == 4 else { return .giveUp }
        if let bytes = parts[0].bytes, let entry = SharedPageRecord.decode(bytes, now: now, wallNow: wallNow),
            now - entry.page.storedAt < entry.page.timeToLive
        {
            return .found(entry)
        }
        if parts[1] != .integer(1), parts.count == 4, let backoff = SharedBackoff(marker: parts[2].text, millisecondsLeft: parts[3]) {
            return .backedOff(backoff)
        }
        guard parts[1] == .integer(1), now + pollInterval < deadline else { return .giveUp }
        return .again
    }

    /// Stores `page` under `version` for its freshness plus the stale-if-error window, then
    /// runs `then`. Failures are counted, not reported: the page is in L1 anyway. While Redis
    /// cannot be reached (a failover under way), sent again every ``retryInterval`` until
    /// `deadline`: replicas waiting for this fetch would otherwise wait out its lock.
    func store(
        _ page: CachedPage, hasNextPage: Bool, names: PageNames, version: String, redis: any RedisCommanding,
        retryingUntil deadline: ContinuousClock.Instant = .now, then: @escaping @Sendable () -> Void = {}
    ) {
        let lifetime = page.timeToLive + staleIfError - (ContinuousClock.now - page.storedAt)
        guard lifetime > .milliseconds(1) else { return then() }
        let record = SharedPageRecord.encode(page, hasNextPage: hasNextPage)
        redis.send([Array("SET".utf8), Array(names.entry(version).utf8), record, Array("PX".utf8), lifetime.redisMilliseconds]) {
            [self] result in
            guard case .failure(let failure) = result else { return then() }
            if Self.retries(failure, until: deadline) {
                return redis.loop.schedule(after: Self.retryInterval) { [self] in
                    store(page, hasNextPage: hasNextPage, names: names, version: version, redis: redis, retryingUntil: deadline, then: then)
                }
            }
            metrics.cacheEvent("error", cache: Self.metricName)
            then()
        }
    }

    /// Frees the lock of a fetch that ended, stored or not, so replicas waiting for it stop
    /// waiting. (A lock that ran out and was taken by another replica may be freed too: that
    /// costs one more origin request, never a wrong page.)
    /// With `slot`, the recovery slot ``lockWithinSlots(_:version:slots:redis:completion:)``
    /// took is freed too. Sent again while Redis cannot be reached, until `deadline` (the
    /// lock's end), as ``store(_:hasNextPage:names:version:redis:retryingUntil:then:)``.
    func unlock(_ names: PageNames, version: String, redis: any RedisCommanding, slot: Bool = false, retryingUntil deadline: ContinuousClock.Instant = .now) {
        let command = slot
            ? [Array("EVAL".utf8), Array(Self.slotUnlockScript.utf8), Array("2".utf8), Array(names.lock(version).utf8), Array(refreshSlotsKey.utf8)]
            : [Array("DEL".utf8), Array(names.lock(version).utf8)]
        redis.send(command) { [self] result in
            guard case .failure(let failure) = result, Self.retries(failure, until: deadline) else { return }
            redis.loop.schedule(after: Self.retryInterval) { [self] in
                unlock(names, version: version, redis: redis, slot: slot, retryingUntil: deadline)
            }
        }
    }

    /// How often a fetch's end (its entry, its lock's release) is sent again while Redis
    /// cannot be reached.
    static let retryInterval: Duration = .milliseconds(250)

    /// Whether a command that failed so is sent again: Redis could not be reached (not an
    /// error reply), and the next try comes before `deadline`.
    static func retries(_ failure: RedisFailure, until deadline: ContinuousClock.Instant, now: ContinuousClock.Instant = .now) -> Bool {
        if case .refused = failure { return false }
        return now + retryInterval < deadline
    }

    /// ``invalidate(productID:redis:completion:)``; when Redis cannot do it now, tried again
    /// every 500 ms until `deadline` (a page stored before the write must not stay fresh in the
    /// shared tier). `firstTry` runs after the first attempt, whatever it gave.
    func invalidate(productID id: Int64?, redis: any RedisCommanding, retryingUntil deadline: ContinuousClock.Instant, firstTry: @escaping @Sendable () -> Void) {
        redis.loop.execute { [self] in
            invalidate(productID: id, redis: redis) { [self] done in
                firstTry()
                guard !done else { return }
                retryInvalidation(productID: id, redis: redis, until: deadline)
            }
        }
    }

    private func retryInvalidation(productID id: Int64?, redis: any RedisCommanding, until deadline: ContinuousClock.Instant) {
        guard ContinuousClock.now < deadline else { return }
        redis.loop.schedule(after: .milliseconds(500)) { [self] in
            invalidate(productID: id, redis: redis) { [self] done in
                if !done { retryInvalidation(productID: id, redis: redis, until: deadline) }
            }
        }
    }

    /// After a write to product `id` (nil: a new product): increments the lists version and
    /// the product's, and tells every replica. `completion` gets whether Redis did it.
    func invalidate(productID id: Int64?, redis: any RedisCommanding, completion: @escaping (Bool) -> Void) {
        var keys = [Array(listsVersion.utf8)]
        if let id { keys.append(Array(productVersion(id).utf8)) }
        let message = id.map { "p:\($0)" } ?? "lists"
        redis.send([Array("EVAL".utf8), Array(Self.invalidateScript.utf8), Array(String(keys.count).utf8)] + keys
            + [Array(channel.utf8), Array(message.utf8)]) { result in
            if case .success = result { completion(true) } else { completion(false) }
        }
    }

    /// Purges `scope` from the shared tier (moves the versions on: the lists' and the
    /// products', or the epoch) and tells every replica. `completion` gets whether Redis did.
    func purge(_ scope: PurgeScope, redis: any RedisCommanding, completion: @escaping @Sendable (Bool) -> Void) {
        let keys: [String]
        switch scope {
        case .products(let ids): keys = [listsVersion] + ids.map(productVersion)
        case .pages, .all: keys = [epochKey]
        }
        redis.send([Array("EVAL".utf8), Array(Self.invalidateScript.utf8), Array(String(keys.count).utf8)] + keys.map { Array($0.utf8) }
            + [Array(channel.utf8), Array(Self.message(scope).utf8)]) { result in
            if case .success = result { completion(true) } else { completion(false) }
        }
    }

    /// What a message on ``channel`` asks of this replica's L1.
    enum Message: Equatable {
        /// Drop every list page and the details of this product (nil: a new product).
        case invalidate(productID: Int64?)
        /// An operator's purge.
        case purge(PurgeScope)
        /// A replica's heartbeat: the subscription works.
        case heartbeat
    }

    /// The message that asks every replica to purge `scope`.
    static func message(_ scope: PurgeScope) -> String {
        switch scope {
        case .products(let ids): "purge:products:" + ids.map(String.init).joined(separator: ",")
        case .pages: "purge:pages"
        case .all: "purge:all"
        }
    }

    static func message(_ payload: [UInt8]) -> Message? {
        let text = String(decoding: payload, as: UTF8.self)
        if text == "lists" { return .invalidate(productID: nil) }
        if text == RedisChannel.heartbeatMessage { return .heartbeat }
        if text.hasPrefix("p:"), let id = Int64(text.dropFirst(2)) { return .invalidate(productID: id) }
        if text == message(.pages) { return .purge(.pages) }
        if text == message(.all) { return .purge(.all) }
        if text.hasPrefix("purge:products:") {
            let ids = text.dropFirst("purge:products:".count).split(separator: ",").compactMap { Int64($0) }
            return ids.isEmpty ? nil : .purge(.products(ids))
        }
        return nil
    }

    static let metricName = "page_shared"
}
