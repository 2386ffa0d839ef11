/// Limits of the origin client, per loop.
public struct OriginClientConfiguration: Sendable, Equatable {
    /// Resolving and connecting; after this the request fails with `connectFailed`.
    public var connectTimeout: Duration = .seconds(2)
    /// The whole exchange, from lease to the last byte; after this it fails with `timedOut`.
    public var requestTimeout: Duration = .seconds(5)
    /// Open connections per origin per loop.
    public var maxConnectionsPerLoop: Int = 32
    /// Requests that may wait for a connection per origin per loop.
    public var maxWaitersPerLoop: Int = 1024
    /// Idle connections are closed after this.
    public var idleTimeout: Duration = .seconds(30)
    /// The largest response body accepted, after gunzip.
    public var maxResponseBytes: Int = 16 * 1024 * 1024

    public init() {}
}
