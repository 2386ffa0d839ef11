/// Requests to origins from one loop, as handlers make them: the transport's `OriginClient`
/// (a pool per origin on the loop), or a fake in tests.
///
/// Invariant: `send` is called on `loop`'s thread, and its completion runs there, exactly once.
public protocol OriginSending: AnyObject, Sendable {
    /// The loop this client belongs to.
    var loop: any LoopExecutor { get }
    /// Sends `request` to `endpoint`; `completion` gets the answer or why there is none.
    func send(_ request: OriginRequest, to endpoint: OriginEndpoint, completion: @escaping (Result<OriginResponse, OriginFailure>) -> Void)
}
