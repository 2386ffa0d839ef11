import GatewayModels
import GatewaySupport

/// Joins concurrent requests for one key, from any loop, into one piece of work: the first
/// caller leads and does the work; the others wait for its result. Thread-safe.
final class RequestCoalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let waiting = Locked<[Key: [@Sendable (Value) -> Void]]>([:])

    /// Registers `waiter` for `key`'s result. Returns true when the caller leads and must
    /// call `finish(_:with:)` exactly once; false when work for `key` is already running.
    func join(_ key: Key, waiter: @escaping @Sendable (Value) -> Void) -> Bool {
        waiting.withLock { table in
            if table[key] != nil {
                table[key]!.append(waiter)
                return false
            }
            table[key] = [waiter]
            return true
        }
    }

    /// Hands `value` to every waiter of `key` (on the calling thread) and ends the round:
    /// the next `join` for `key` leads again.
    func finish(_ key: Key, with value: Value) {
        let waiters = waiting.withLock { $0.removeValue(forKey: key) ?? [] }
        for waiter in waiters { waiter(value) }
    }

    /// Whether work for `key` is running now (a moment later it may have ended).
    func isRunning(_ key: Key) -> Bool {
        waiting.withLock { $0[key] != nil }
    }

    /// Keys with work running.
    var inProgress: Int { waiting.withLock { $0.count } }
}
