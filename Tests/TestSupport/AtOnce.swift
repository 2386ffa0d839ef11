import Foundation

/// Runs `body(0)`, `body(1)`, … `body(count - 1)` on threads of their own, all at once, and
/// returns their results in order (nil where one threw). Blocking: call it inside `offPool`.
public func atOnce<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) -> [T?] {
    let lock = NSLock()
    nonisolated(unsafe) var results = [T?](repeating: nil, count: count)
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread.detachNewThread {
            let result = try? body(index)
            lock.lock()
            results[index] = result
            lock.unlock()
            group.leave()
        }
    }
    group.wait()
    lock.lock()
    defer { lock.unlock() }
    return results
}
