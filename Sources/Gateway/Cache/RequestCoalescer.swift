import GatewayModels
import GatewaySupport
import Tracing

/// Joins concurrent requests for one key, from any loop, into one piece of work: the first
/// caller leads and does the work; the others wait for its result. Thread-safe.
final class RequestCoalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// One piece of work under way: who leads it (when recorded) and who waits.
    private struct Round {
        var leader: TraceScope?
        var waiters: [@Sendable (Value) -> Void]
    }

    private let waiting = Locked<[Key: Round]>([:])

    /// Registers `waiter` for `key`'s result. Returns true when the caller leads and must
    /// call `finish(_:with:)` exactly once; false when work for `key` is already running.
    func join(_ key: Key, waiter: @escaping @Sendable (Value) -> Void) -> Bool {
        join(key, scope: nil, waiter: waiter)
    }

    /// ``join(_:waiter:)`` for a request that may be recorded (`scope`): when it leads, its
    /// scope is the round's; when it waits and is recorded, the wait is an INTERNAL span
    /// `name` of it (from now until the result), linked to the leader's span when the leader
    /// is recorded too ("served by a fetch another request started").
    func join(_ key: Key, scope: TraceScope?, waitName: String = "coalesced wait", waiter: @escaping @Sendable (Value) -> Void) -> Bool {
        // Read only for a recorded request: an unrecorded join costs no clock read.
        let joined: ContinuousClock.Instant? = scope == nil ? nil : .now
        return waiting.withLock { table in
            guard table[key] != nil else {
                table[key] = Round(leader: scope, waiters: [waiter])
                return true
            }
            guard let scope, let joined else {
                table[key]!.waiters.append(waiter)
                return false
            }
            let links = table[key]!.leader.map { [$0.link] } ?? []
            table[key]!.waiters.append { value in
                scope.recordInternal(waitName, elapsed: .now - joined, links: links)
                waiter(value)
            }
            return false
        }
    }

    /// Hands `value` to every waiter of `key` (on the calling thread) and ends the round:
    /// the next `join` for `key` leads again.
    func finish(_ key: Key, with value: Value) {
        let waiters = waiting.withLock { $0.removeValue(forKey: key)?.waiters ?? [] }
        for waiter in waiters { waiter(value) }
    }

    /// Whether work for `key` is running now (a moment later it may have ended).
    func isRunning(_ key: Key) -> Bool {
        waiting.withLock { $0[key] != nil }
    }

    /// Keys with work running.
    var inProgress: Int { waiting.withLock { $0.count } }
}
