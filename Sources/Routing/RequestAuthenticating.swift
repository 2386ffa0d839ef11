import HTTPInterface
import Tracing

/// What judges a request's bearer token (the gateway's `BearerAuthenticator`): asked once per
/// request, before its rate limit is spent and before a stored answer is served, so a limit
/// per user counts the user and no stored answer goes to a request that needs a token.
///
/// Thread-safe: every loop asks.
public protocol RequestAuthenticating: Sendable {
    /// Judges `request` from its bytes: from what is remembered when its token was seen
    /// before, else by verifying it (one signature check, on the calling loop). On the loop
    /// thread; must not block.
    func authenticate(_ request: RequestBytes) -> RequestAuthentication

    /// Finishes a judgement `authenticate` left `.awaitingKeys(pending)`: once the key set
    /// has been fetched again, `completion` gets `.verified`, `.anonymous` or `.refused`, on
    /// `loop`'s thread, exactly once. `trace`: the request's, when it is recorded (the wait is a
    /// span of it, and the key set's load links to it).
    func resume(
        _ pending: any Sendable, on loop: any LoopExecutor, trace: TraceScope?, completion: @escaping @Sendable (RequestAuthentication) -> Void)
}
