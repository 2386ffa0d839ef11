import Foundation

/// Runs blocking socket work on a thread of its own, so a test never blocks the Swift
/// concurrency pool that the gateway's async handlers need.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result { try body() })
        }
    }
}
