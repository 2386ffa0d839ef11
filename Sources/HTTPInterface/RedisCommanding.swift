/// Commands to the replicas' shared Redis from one loop: the transport's `RedisConnection`,
/// or a fake in tests.
///
/// Invariant: `send` is called on `loop`'s thread, and its completion runs there, exactly once.
public protocol RedisCommanding: AnyObject, Sendable {
    /// The loop this connection belongs to.
    var loop: any LoopExecutor { get }
    /// Whether Redis answered lately (readiness reports it).
    var isReachable: Bool { get }
    /// Sends one command (`["GET", key]`); `completion` gets its reply or why there is none
    /// (refused at once while the breaker is open or too many commands wait).
    func send(_ arguments: [[UInt8]], completion: @escaping (Result<RedisReply, RedisFailure>) -> Void)
}
