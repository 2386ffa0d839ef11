import GatewayModels
import HTTPInterface
import GatewaySupport

/// Backoff per key after failed origin fetches, so that a failing origin is not asked again
/// for the same thing at every read: after a failure (5xx, time-out, connection error, an
/// unreadable answer) the key is not fetched before its backoff ends. The first backoff is
/// `first` (1 s); each further failure doubles it, up to `maximum` (`--origin-retry-max`),
/// and each is drawn with jitter between half and all of that, so keys that failed together
/// are not all retried together. A success forgets the key, and so does a failure more than
/// `maximum` after the last backoff ended (it starts over at `first`).
///
/// Meanwhile the read path serves what it has stored (stale-if-error) and answers a miss at
/// once with the failure's problem and `Retry-After`. Thread-safe; at most `maxKeys` keys
/// (past it, ended backoffs are dropped first, then those ending soonest). The clock and the
/// jitter are arguments, so tests are exact.
final class FetchBackoff<Key: Hashable & Sendable>: Sendable {
    /// A key that is backing off.
    struct Entry: Sendable {
        /// No fetch before this.
        var until: ContinuousClock.Instant
        /// Failures in a row.
        var failures: Int
        /// What the last failure answered, to answer again while it lasts.
        var error: GatewayError
        var originStatus: Int?
    }

    let first: Duration
    let maximum: Duration
    let maxKeys: Int
    /// A number in 0...1 for each backoff drawn.
    private let jitter: @Sendable () -> Double
    private let entries = Locked<[Key: Entry]>([:])

    init(
        first: Duration = .seconds(1), maximum: Duration = .seconds(30), maxKeys: Int = 10_000,
        jitter: @escaping @Sendable () -> Double = { Double.random(in: 0...1) }
    ) {
        self.first = first
        self.maximum = max(first, maximum)
        self.maxKeys = maxKeys
        self.jitter = jitter
    }

    /// The backoff `key` is in at `now`; nil when it may be fetched.
    func blocked(_ key: Key, now: ContinuousClock.Instant) -> Entry? {
        entries.withLock { entries in
            guard let entry = entries[key], now < entry.until else { return nil }
            return entry
        }
    }

    /// Records a failed fetch of `key` at `now`; returns how long the key now waits.
    @discardableResult
    func failed(_ key: Key, error: GatewayError, originStatus: Int?, now: ContinuousClock.Instant) -> Duration {
        let draw = min(max(jitter(), 0), 1)
        return entries.withLock { entries in
            // A key whose last backoff ended long ago starts over.
            let previous = entries[key].flatMap { now - $0.until < maximum ? $0.failures : nil } ?? 0
            let failures = previous + 1
            // first × 2^(failures − 1), capped; the shift stops growing long before overflow.
            let full = min(maximum, first * Double(1 << min(failures - 1, 20)))
            let wait = full * (0.5 + draw / 2)
            if entries[key] == nil, entries.count >= maxKeys { Self.makeRoom(&entries, now: now, for: maxKeys) }
            entries[key] = Entry(until: now + wait, failures: failures, error: error, originStatus: originStatus)
            return wait
        }
    }

    /// Takes a backoff another replica started (``SharedBackoff``): `key` is not fetched before
    /// `until` here either. A longer one already on record is kept.
    func adopt(_ key: Key, until: ContinuousClock.Instant, error: GatewayError, originStatus: Int?) {
        entries.withLock { entries in
            if let entry = entries[key], entry.until >= until { return }
            if entries[key] == nil, entries.count >= maxKeys { Self.makeRoom(&entries, now: .now, for: maxKeys) }
            entries[key] = Entry(until: until, failures: entries[key]?.failures ?? 1, error: error, originStatus: originStatus)
        }
    }

    /// Records a successful fetch of `key`: its backoff is forgotten.
    func succeeded(_ key: Key) {
        entries.withLock { entries in
            guard entries[key] != nil else { return }
            entries[key] = nil
        }
    }

    /// The record of `key`'s last failure if it has not succeeded since, whether or not its
    /// backoff has ended.
    func record(_ key: Key) -> Entry? {
        entries.withLock { $0[key] }
    }

    /// Keys with a backoff on record (tests, metrics).
    var count: Int { entries.withLock { $0.count } }

    private static func makeRoom(_ entries: inout [Key: Entry], now: ContinuousClock.Instant, for limit: Int) {
        entries = entries.filter { now < $0.value.until }
        while entries.count >= limit, let soonest = entries.min(by: { $0.value.until < $1.value.until }) {
            entries[soonest.key] = nil
        }
    }
}
