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
    /// The server's host and port as configured (a span's `server.address`); nil when unknown.
    var server: (host: String, port: Int)? { get }
    /// Sends a write that must outlive a failover (an `Idempotency-Key` record): followed,
    /// when the primary has replicas to wait for, by `WAIT` on a connection kept for such
    /// writes (a `WAIT` holds every command behind it). `completion` gets the write's result
    /// and whether enough replicas acknowledged it (true with none to wait for).
    func sendDurably(_ arguments: [[UInt8]], completion: @escaping (Result<RedisReply, RedisFailure>, _ replicated: Bool) -> Void)
    /// With Redis Sentinel: the primary in use and the last failover; nil otherwise.
    var primaryStatus: RedisPrimaryStatus? { get }
}

extension RedisCommanding {
    public var server: (host: String, port: Int)? { nil }
    public var primaryStatus: RedisPrimaryStatus? { nil }

    /// Without replicas to wait for: `send`.
    public func sendDurably(_ arguments: [[UInt8]], completion: @escaping (Result<RedisReply, RedisFailure>, _ replicated: Bool) -> Void) {
        send(arguments) { completion($0, true) }
    }
}

/// What replicas say to each other on their channel besides their own messages.
public enum RedisChannel {
    /// Published by the subscribing connection at every heartbeat interval, so a silent
    /// channel can be told from a dead subscription; listeners ignore it.
    public static let heartbeatMessage = "hb"
}

/// With Redis Sentinel: the primary this server uses, and its last failover (`/readyz`).
public struct RedisPrimaryStatus: Sendable, Equatable {
    /// `host:port` as the sentinels named it; nil while no sentinel has.
    public var primary: String?
    /// The last failover this server followed: when it learned of the new primary
    /// (milliseconds since 1970), and how long it had no primary (from its first failed
    /// connection to the old one, or the news if that came first, until its first
    /// connection to the new one was ready). nil before the first.
    public var lastFailover: (atMillis: Int64, seconds: Double)?

    public init(primary: String?, lastFailover: (atMillis: Int64, seconds: Double)? = nil) {
        self.primary = primary
        self.lastFailover = lastFailover
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.primary == b.primary && a.lastFailover?.atMillis == b.lastFailover?.atMillis && a.lastFailover?.seconds == b.lastFailover?.seconds
    }
}
