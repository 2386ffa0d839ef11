import Synchronization

/// What a process knows about its Redis, shared by every loop's connection: how many
/// connections are up, and a breaker that stops waiting on a Redis that keeps failing.
///
/// The breaker opens after ``failureThreshold`` failures in a row (timeouts, lost
/// connections), for ``openFor``; commands then fail at once as `unavailable`. After that,
/// commands go through again, and one more failure opens it again at once, while one success
/// closes it. Thread-safe (atomics only): read on every Redis command.
public final class RedisHealth: Sendable {
    public static let failureThreshold = 5
    public static let openFor: Duration = .seconds(2)

    private let consecutiveFailures = Atomic<Int>(0)
    /// Nanoseconds on `clockBase`'s clock until which the breaker is open; 0 when closed.
    private let openUntil = Atomic<Int64>(0)
    private let connected = Atomic<Int>(0)
    private let subscribed = Atomic<Bool>(false)
    private let replicas = Atomic<Int>(-1)
    private let clockBase = ContinuousClock.now
    /// Names this server's connections in Redis (`CLIENT LIST` shows
    /// `omg-commands-<instance>` and `omg-subscriber-<instance>`), random per server.
    public let instance: String

    public init() { instance = String(UInt64.random(in: 0...UInt64.max), radix: 16) }

    /// A health of its own for connections of the same server (`instance`: that server's).
    package init(instance: String) { self.instance = instance }

    /// Whether a command may be sent now.
    public func allows(now: ContinuousClock.Instant = .now) -> Bool {
        openUntil.load(ordering: .relaxed) <= nanoseconds(now)
    }

    /// Whether the breaker is open now.
    public var isOpen: Bool { !allows() }

    /// Connections up now (data connections and the subscriber).
    public var connectedCount: Int { connected.load(ordering: .relaxed) }

    /// Whether Redis is reachable now: a connection is up and the breaker is closed.
    public var isReachable: Bool { connectedCount > 0 && allows() }

    /// Redis answered (an error reply counts: Redis is there).
    public func recordSuccess() {
        if consecutiveFailures.load(ordering: .relaxed) != 0 { consecutiveFailures.store(0, ordering: .relaxed) }
        if openUntil.load(ordering: .relaxed) != 0 { openUntil.store(0, ordering: .relaxed) }
    }

    /// A command timed out or lost its connection.
    public func recordFailure(now: ContinuousClock.Instant = .now) {
        let failures = consecutiveFailures.add(1, ordering: .relaxed).newValue
        guard failures >= Self.failureThreshold else { return }
        openUntil.store(nanoseconds(now + Self.openFor), ordering: .relaxed)
        // Half-open afterwards: the next failure opens it again.
        consecutiveFailures.store(Self.failureThreshold - 1, ordering: .relaxed)
    }

    /// The replicas the primary last said are connected to it (`ROLE`); -1 until it said.
    public var replicasConnected: Int { replicas.load(ordering: .relaxed) }

    /// Records what `ROLE` said; returns the count before (every connection reports the same
    /// primary, so only the first to see a change finds a different one).
    @discardableResult
    package func setReplicasConnected(_ count: Int) -> Int { replicas.exchange(count, ordering: .relaxed) }

    /// Whether the subscription to other replicas' writes works now.
    public var isSubscribed: Bool { subscribed.load(ordering: .relaxed) }

    package func setSubscribed(_ value: Bool) { subscribed.store(value, ordering: .relaxed) }

    package func connectionUp() { connected.add(1, ordering: .relaxed) }
    package func connectionDown() { connected.subtract(1, ordering: .relaxed) }

    private func nanoseconds(_ instant: ContinuousClock.Instant) -> Int64 {
        let (seconds, attoseconds) = (instant - clockBase).components
        return max(1, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
