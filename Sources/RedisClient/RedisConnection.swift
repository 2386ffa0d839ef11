import CHiredis
import CEvent
import Dispatch
import Glibc
import HTTPInterface
import Logging
import Observability
import Transport

/// One connection to Redis, on one event loop: commands go out as RESP (formatted by
/// hiredis), over the transport's ``OutboundStream`` (plain TCP for `redis://`, TLS for
/// `rediss://`), and replies come back through hiredis' reply reader. Added here: a deadline
/// on every command (a late answer is dropped), a connect deadline that covers the TLS
/// handshake, reconnection with backoff, name resolution off the loop, and a bound on
/// commands waiting.
///
/// Invariant: `stream`, `reader`, `timer` and every other mutable property are used only on
/// `loop`'s thread; `init` may run before the loop starts, and `start()` posts itself to the
/// loop. Commands are pipelined on the one connection; Redis answers them in order.
public final class RedisConnection: RedisCommanding, LoopAttachment, @unchecked Sendable {
    /// The loop whose thread this connection runs on.
    let eventLoop: EventLoop
    public var loop: any LoopExecutor { eventLoop }
    /// Whether Redis answered lately.
    public var isReachable: Bool { health.isReachable }
    public var server: (host: String, port: Int)? { node.map { ($0.host, $0.port) } ?? (configuration.host, configuration.port) }
    /// With Redis Sentinel: the primary in use and the last failover.
    public var primaryStatus: RedisPrimaryStatus? { (nodes as? SentinelDirectory)?.status }
    /// `--redis-wait-replicas`, or 1 while the primary reports a replica (`ROLE`, asked at
    /// every connection and every ``heartbeatInterval``); `WAIT` gives up after half of
    /// `--redis-timeout`, so its answer comes before the command's deadline.
    var replicaWait: RedisReplicaWait? {
        let replicas = configuration.waitReplicas ?? (health.replicasConnected > 0 ? 1 : 0)
        return replicas > 0 ? RedisReplicaWait(replicas: replicas, timeout: configuration.commandTimeout / 2) : nil
    }
    let configuration: RedisConfiguration
    let health: RedisHealth
    let logger: Logger
    let metrics: GatewayMetrics?
    let role: Role
    /// The connection of this loop kept for writes followed by `WAIT` (``sendDurably``), so
    /// a `WAIT` that lasts never holds the reads behind it; nil: this one.
    let durable: RedisConnection?
    /// What `CLIENT SETNAME` calls a command connection: `omg-<name>-<instance>`.
    let name: String
    /// Where to connect: the URL's server, or the primary the sentinels name.
    let nodes: any RedisNodeSource
    /// The node of the current (or last) attempt.
    var node: RedisNode?
    /// The node the last attempt failed on (told to ``nodes`` at the next); nil after a
    /// success.
    var failed: RedisNode?
    /// How the log names this connection (its URL without the password, and with Sentinel
    /// the node).
    var shown: String { nodes.describe(node) }

    /// What the connection is for.
    package enum Role {
        /// Commands (`send`).
        case commands
        /// A subscription to `channel` (Redis then takes no other command on it). Every
        /// ``heartbeatInterval`` it beats as `heartbeat` says; when nothing arrives for
        /// ``heartbeatTimeout`` the subscription counts as lost, and the connection is made
        /// again.
        case subscriber(channel: String, heartbeat: Heartbeat, events: @Sendable (SubscriberEvent) -> Void)
    }

    /// How a subscriber shows the subscription still works.
    package enum Heartbeat {
        /// Publishes `RedisChannel.heartbeatMessage` on the channel through this command
        /// connection (on the same loop), and hears it back.
        case publish(via: RedisConnection)
        /// Sends `PING` on the subscription itself (a sentinel takes no `PUBLISH`).
        case ping
    }

    /// What a subscriber connection reports, on its loop.
    package enum SubscriberEvent: Sendable {
        /// Subscribed: from now on every message on the channel arrives.
        case linked
        /// The subscription ended (connection lost, heartbeat missed): messages may have been
        /// lost, and will be until `linked` again.
        case unlinked
        case message([UInt8])
    }

    /// How often an idle connection shows Redis it is there and learns Redis still is: a
    /// `PING` on a command connection, a `PUBLISH` heard back on a subscriber.
    static let heartbeatInterval: Duration = .seconds(1)
    static let heartbeatTimeout: Duration = .seconds(3)
    /// Subscriber: when the subscription was confirmed or last heard from; nil while unlinked.
    var lastHeard: ContinuousClock.Instant?
    var nextBeat = ContinuousClock.now

    /// The stream while connecting or connected; owned by this connection (closed by
    /// ``dropStream()``).
    var stream: OutboundStream?
    /// hiredis' reply reader for `stream`'s bytes; owned by this connection, made and freed
    /// with the stream.
    var reader: UnsafeMutablePointer<redisReader>?
    /// The client TLS context for `rediss://` (shared by every connection; only read).
    let tls: TLSContext?
    /// One timer for command deadlines, the connect deadline and the reconnect delay; owned
    /// by this connection, on `loop`.
    var timer: OpaquePointer?
    var phase = Phase.idle
    /// Commands sent and not yet answered or timed out, oldest first. Every command has the
    /// same timeout, so deadlines grow along the queue; Redis answers in the same order.
    var waiting: [Waiting] = []
    var waitingHead = 0
    /// The ids of the commands sent on this stream whose replies have not come (answered
    /// late or given up included), oldest first: Redis replies in order, so each reply is
    /// the first one's. On a subscriber, a reply with none left is the subscription's.
    var sent: [Int] = []
    var sentHead = 0
    /// Commands the stream owes a reply to.
    var outstanding: Int { sent.count - sentHead }
    var nextID = 1
    var backoff = RedisConnection.firstBackoff
    /// Counts connection attempts, so a late name resolution for an abandoned one is ignored.
    var attempt = 0
    /// Whether the stream's socket (and TLS handshake) connected: for the log when Redis does
    /// not answer in time.
    var streamConnected = false
    /// When Redis last replied on this connection (or the connection began).
    var lastReply = ContinuousClock.now
    /// When a command connection next asks `ROLE` (every ``heartbeatInterval``): so a Redis
    /// that went silent is noticed on every connection, not only on busy ones, and the
    /// replicas the primary has are known (``replicaWait``).
    var nextRole = ContinuousClock.now
    /// How long a connection with commands waiting may hear nothing from Redis before it is
    /// taken for dead (a stopped process, a dropped route) and made again.
    var silenceLimit: Duration { max(.seconds(2), configuration.commandTimeout * 4) }

    enum Phase {
        case idle
        /// Asking ``nodes`` where to connect (with Sentinel, a query may run: it has its own
        /// deadlines).
        case locating
        case resolving(deadline: ContinuousClock.Instant)
        /// Commands may be sent: the stream keeps them until it connects. Ends when Redis
        /// answered the set-up (`CLIENT SETNAME`), or at `deadline`.
        case connecting(deadline: ContinuousClock.Instant)
        /// Redis answered on this connection. A subscriber must be subscribed by
        /// `linkBy`; nil once it was (or for a command connection).
        case ready(linkBy: ContinuousClock.Instant?)
        case retrying(at: ContinuousClock.Instant)
        case closed
    }

    struct Waiting {
        let id: Int
        let deadline: ContinuousClock.Instant
        /// Whether its timeout or loss counts against the breaker (a new connection's set-up
        /// does not: the attempt has its own deadline).
        let countsFailures: Bool
        var completion: ((Result<RedisReply, RedisFailure>) -> Void)?
    }

    /// How a command goes out.
    enum Sending {
        /// The app's: only on a ready connection, with the breaker closed and fewer than
        /// ``maxOutstanding`` waiting; its deadline is `--redis-timeout`.
        case request
        /// A new connection's set-up (`AUTH`, `SELECT`, `ROLE`, `CLIENT SETNAME`): before the
        /// connection is ready, past the breaker, until the connect deadline.
        case setUp
        /// A heartbeat (`ROLE`): past the breaker (it is a probe too).
        case probe
        /// A `WAIT` behind a command already sent: past the breaker and the bound, so it
        /// always follows its command.
        case behind
    }

    static let firstBackoff: Duration = .milliseconds(100)
    static let maxBackoff: Duration = .seconds(5)
    /// Commands the stream may owe replies to; past it new ones fail as `unavailable`.
    static let maxOutstanding = 10_000

    /// - Parameter tls: the client context for `rediss://` (`TLSContext.client`, made once for
    ///   every connection); nil for `redis://`. A `rediss://` configuration without one never
    ///   connects (and says so).
    /// - Parameter nodes: where to connect; nil: the configuration's host and port.
    package init(
        loop: EventLoop, configuration: RedisConfiguration, tls: TLSContext? = nil, health: RedisHealth, logger: Logger,
        metrics: GatewayMetrics? = nil, nodes: (any RedisNodeSource)? = nil, role: Role = .commands, name: String = "commands",
        durable: RedisConnection? = nil
    ) {
        self.nodes = nodes ?? FixedRedisNode(configuration)
        self.durable = durable
        self.name = name
        eventLoop = loop
        self.configuration = configuration
        self.tls = tls
        self.health = health
        self.logger = logger
        self.metrics = metrics
        self.role = role
        // Unmanaged: passUnretained. The timer is freed in close(), which the owner calls
        // before it lets this connection go, so the callback never sees a freed object.
        timer = event_new(eventLoop.base, -1, 0, redisTimerCallback, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Connects in the background, and again whenever the connection is lost. Any thread.
    public func start() {
        eventLoop.execute { [self] in
            guard case .idle = phase else { return }
            connect()
        }
    }


    /// Sends one command (`["GET", key]`). On the loop thread; `completion` runs there,
    /// exactly once: with the reply, `.timedOut` after ``RedisConfiguration/commandTimeout``,
    /// `.connectionLost`, `.refused` for an error reply, or `.unavailable` at once when there
    /// is no connection, the breaker is open, or too many commands wait.
    public func send(_ arguments: [[UInt8]], completion: @escaping (Result<RedisReply, RedisFailure>) -> Void) {
        send(arguments, as: .request, completion: completion)
    }

    /// `send`, as `sending` says.
    func send(_ arguments: [[UInt8]], as sending: Sending, completion: @escaping (Result<RedisReply, RedisFailure>) -> Void) {
        precondition(eventLoop.inLoop, "RedisConnection.send off its loop")
        guard let stream else { return completion(.failure(.unavailable)) }
        let deadline: ContinuousClock.Instant
        switch (sending, phase) {
        case (.setUp, .connecting(let connectBy)): deadline = connectBy
        case (.request, .ready):
            guard outstanding < Self.maxOutstanding, health.allows() else { return completion(.failure(.unavailable)) }
            deadline = .now + configuration.commandTimeout
        case (.probe, .ready):
            guard outstanding < Self.maxOutstanding else { return completion(.failure(.unavailable)) }
            deadline = .now + configuration.commandTimeout
        case (.behind, .ready): deadline = .now + configuration.commandTimeout
        default: return completion(.failure(.unavailable))
        }
        let id = nextID
        nextID += 1
        guard Self.write(arguments, to: stream) else { return completion(.failure(.unavailable)) }
        sent.append(id)
        let wasEmpty = waitingHead == waiting.count
        waiting.append(Waiting(id: id, deadline: deadline, countsFailures: sending != .setUp, completion: completion))
        if wasEmpty { arm() }
    }

    /// Sends `arguments` (a write that must outlive a failover: an `Idempotency-Key`
    /// record), on the connection kept for such writes (``durable``, else this one), followed
    /// there by `WAIT` when ``replicaWait`` says so. `completion` gets the write's result and
    /// whether enough replicas acknowledged it (true with nothing to wait for; false when the
    /// wait failed or the write was refused at once). On the loop thread.
    public func sendDurably(_ arguments: [[UInt8]], completion: @escaping (Result<RedisReply, RedisFailure>, _ replicated: Bool) -> Void) {
        let target = durable ?? self
        guard let wait = replicaWait else { return target.send(arguments) { completion($0, true) } }
        let write = WriteThenWait()
        target.send(arguments) { result in
            write.result = result
            // Refused at once: no WAIT follows.
            if !write.waitQueued { completion(result, false) }
        }
        guard write.result == nil else { return }
        write.waitQueued = true
        // Replies come in order: the write's result is known when the WAIT's arrives.
        target.send(wait.command, as: .behind) { waited in
            let acknowledged = if case .success(.integer(let count)) = waited { count >= wait.replicas } else { false }
            completion(write.result ?? .failure(.connectionLost), acknowledged)
        }
    }

    /// A durable write's result while its `WAIT` is outstanding (one loop: no lock).
    private final class WriteThenWait {
        var result: Result<RedisReply, RedisFailure>?
        var waitQueued = false
    }

    /// Writes `arguments` to `stream` as one RESP command (formatted by hiredis).
    static func write(_ arguments: [[UInt8]], to stream: OutboundStream) -> Bool {
        var arguments = arguments
        var command: UnsafeMutablePointer<CChar>?
        let length = withArgv(&arguments) { argc, argv, argvlen in redisFormatCommandArgv(&command, argc, argv, argvlen) }
        guard length > 0, let command else { return false }
        defer { redisFreeCommand(command) }
        stream.write(UnsafeRawBufferPointer(start: command, count: Int(length)))
        return true
    }

    /// Calls `body` with `arguments` as C's `argc`, `argv` and `argvlen` (valid only inside;
    /// hiredis copies them before it returns).
    static func withArgv(
        _ arguments: inout [[UInt8]],
        _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int>?) -> Int32
    ) -> Int32 {
        var lengths = arguments.map(\.count)
        let joined: [UInt8] = Array(arguments.joined()) + [0]
        return joined.withUnsafeBufferPointer { bytes -> Int32 in
            var pointers: [UnsafePointer<CChar>?] = []
            pointers.reserveCapacity(lengths.count)
            var offset = 0
            let base = UnsafeRawPointer(bytes.baseAddress!)
            for length in lengths {
                pointers.append((base + offset).assumingMemoryBound(to: CChar.self))
                offset += length
            }
            return pointers.withUnsafeMutableBufferPointer { argv in
                lengths.withUnsafeMutableBufferPointer { argvlen in
                    body(Int32(argvlen.count), argv.baseAddress, UnsafePointer(argvlen.baseAddress))
                }
            }
        }
    }
}
