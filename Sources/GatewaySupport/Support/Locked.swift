import Foundation

/// A value that threads share behind a lock: the project's one lock type.
///
/// Built on Foundation's `NSLock` (a pthread mutex) rather than `Synchronization.Mutex`,
/// whose futex-based lock ThreadSanitizer cannot see on Linux: every `Mutex` in this code
/// base drew a false "data race" under `SANITIZER=thread scripts/sanitize`, which made that
/// run useless for finding real ones. An uncontended lock and unlock cost about the same
/// and allocate nothing. Not reentrant: `body` must not lock the same value again.
public final class Locked<Value> {
    @usableFromInline let lock = NSLock()
    @usableFromInline var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    /// Runs `body` with the value while holding the lock, on the caller's thread, and
    /// returns what it returns; what `body` throws is rethrown after the lock is released.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Shared across threads only when the value itself may be.
extension Locked: @unchecked Sendable where Value: Sendable {}
