/// One event loop as the app sees it: the thread a request's work runs on, and the way back
/// to it from elsewhere. The transport's `EventLoop` is one; tests use a serial queue.
public protocol LoopExecutor: AnyObject, Sendable {
    /// Whether the caller runs on this loop's thread.
    var inLoop: Bool { get }
    /// Runs `job` on the loop's thread, soon, in the order posted. Callable from any thread,
    /// the loop's own included (the job then runs on a later turn, never re-entrantly).
    func post(_ job: @escaping @Sendable () -> Void)
    /// Runs `job` now when already on the loop, otherwise posts it.
    func execute(_ job: @escaping @Sendable () -> Void)
    /// Runs `job` on the loop's thread once `delay` has passed. Callable from any thread.
    func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void)
}
