import CHiredis
import CEvent
import Dispatch
import Glibc
import HTTPInterface
import Logging
import Observability
import Transport

/// One hiredis async connection to Redis, on one event loop (hiredis contexts are not
/// thread-safe). What hiredis 0.14 lacks is added here: a deadline on every command (a late
/// answer is dropped), a connect deadline, reconnection with backoff, name resolution off
/// the loop (hiredis would call a blocking `getaddrinfo`), and a bound on commands waiting.
///
/// Invariant: `context`, `timer` and every other mutable property are used only on `loop`'s
/// thread; `init` may run before the loop starts, and `start()` posts itself to the loop.
/// Commands are pipelined on the one connection; Redis answers them in order.
public final class RedisConnection: RedisCommanding, LoopAttachment, @unchecked Sendable {
    /// The loop whose thread this connection runs on.
    let eventLoop: EventLoop
    public var loop: any LoopExecutor { eventLoop }
    /// Whether Redis answered lately.
    public var isReachable: Bool { health.isReachable }
    public var server: (host: String, port: Int)? { (configuration.host, configuration.port) }
    let configuration: RedisConfiguration
    let health: RedisHealth
    let logger: Logger
    let metrics: GatewayMetrics?
    let role: Role

    /// What the connection is for.
    package enum Role {
        /// Commands (`send`).
        case commands
        /// A subscription to `channel` (hiredis then takes no other command on it). Every
        /// ``heartbeatInterval`` it publishes `RedisChannel.heartbeatMessage` through `publisher` (a
        /// command connection on the same loop); when nothing arrives for ``heartbeatTimeout``
        /// the subscription counts as lost, and the connection is made again.
        case subscriber(channel: String, publisher: RedisConnection, events: @Sendable (SubscriberEvent) -> Void)
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

    static let heartbeatInterval: Duration = .seconds(1)
    static let heartbeatTimeout: Duration = .seconds(3)
    /// Subscriber: when the subscription was confirmed or last heard from; nil while unlinked.
    var lastHeard: ContinuousClock.Instant?
    var nextBeat = ContinuousClock.now

    /// The hiredis context while connecting or connected; owned by this connection (hiredis
    /// frees it itself after its connect-failure or disconnect callback, which clears this).
    var context: UnsafeMutablePointer<redisAsyncContext>?
    /// One timer for command deadlines, the connect deadline and the reconnect delay; owned
    /// by this connection, on `loop`.
    var timer: OpaquePointer?
    var phase = Phase.idle
    /// Commands sent and not yet answered or timed out, oldest first. Every command has the
    /// same timeout, so deadlines grow along the queue; hiredis answers in the same order.
    var waiting: [Waiting] = []
    var waitingHead = 0
    /// Commands hiredis still holds a callback for (answered, or given up but not answered).
    var outstanding = 0
    var nextID = 1
    var backoff = RedisConnection.firstBackoff
    /// Counts connection attempts, so a late name resolution for an abandoned one is ignored.
    var attempt = 0

    enum Phase {
        case idle
        case resolving(deadline: ContinuousClock.Instant)
        /// Commands may be sent: hiredis queues them until the socket connects.
        case connecting(deadline: ContinuousClock.Instant)
        case ready
        case retrying(at: ContinuousClock.Instant)
        case closed
    }

    struct Waiting {
        let id: Int
        let deadline: ContinuousClock.Instant
        var completion: ((Result<RedisReply, RedisFailure>) -> Void)?
    }

    static let firstBackoff: Duration = .milliseconds(100)
    static let maxBackoff: Duration = .seconds(5)
    /// Commands hiredis may hold callbacks for; past it new ones fail as `unavailable`.
    static let maxOutstanding = 10_000

    package init(
        loop: EventLoop, configuration: RedisConfiguration, health: RedisHealth, logger: Logger, metrics: GatewayMetrics? = nil,
        role: Role = .commands
    ) {
        eventLoop = loop
        self.configuration = configuration
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

    /// Whether the connection is up (on the loop).
    var isReady: Bool {
        if case .ready = phase { return true }
        return false
    }

    /// Sends one command (`["GET", key]`). On the loop thread; `completion` runs there,
    /// exactly once: with the reply, `.timedOut` after ``RedisConfiguration/commandTimeout``,
    /// `.connectionLost`, `.refused` for an error reply, or `.unavailable` at once when there
    /// is no connection, the breaker is open, or too many commands wait.
    public func send(_ arguments: [[UInt8]], completion: @escaping (Result<RedisReply, RedisFailure>) -> Void) {
        send(arguments, past: false, completion: completion)
    }

    /// `send`, with `pastBreaker` for the set-up commands of a new connection.
    func send(_ arguments: [[UInt8]], past pastBreaker: Bool, completion: @escaping (Result<RedisReply, RedisFailure>) -> Void) {
        precondition(eventLoop.inLoop, "RedisConnection.send off its loop")
        guard let context, outstanding < Self.maxOutstanding, pastBreaker || health.allows() else { return completion(.failure(.unavailable)) }
        switch phase {
        case .connecting, .ready: break
        default: return completion(.failure(.unavailable))
        }
        let id = nextID
        nextID += 1
        guard Self.command(context, id: id, arguments) else { return completion(.failure(.unavailable)) }
        outstanding += 1
        let wasEmpty = waitingHead == waiting.count
        waiting.append(Waiting(id: id, deadline: .now + configuration.commandTimeout, completion: completion))
        if wasEmpty { arm() }
    }

    /// Hands `arguments` to hiredis with `id` as the callback's private data.
    static func command(_ context: UnsafeMutablePointer<redisAsyncContext>, id: Int, _ arguments: [[UInt8]]) -> Bool {
        var arguments = arguments
        return withArgv(&arguments) { argc, argv, argvlen in
            redisAsyncCommandArgv(context, redisReplyCallback, UnsafeMutableRawPointer(bitPattern: id), argc, argv, argvlen)
        } == REDIS_OK
    }

    /// Calls `body` with `arguments` as C's `argc`, `argv` and `argvlen` (valid only inside;
    /// hiredis copies them into its output buffer before it returns).
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

    // MARK: Connecting

    /// Resolves the host off the loop, then connects to its first address.
    func connect() {
        attempt += 1
        let thisAttempt = attempt
        let host = configuration.host
        phase = .resolving(deadline: .now + configuration.connectTimeout)
        arm()
        DispatchQueue.global().async { [self] in
            let address = Self.resolve(host)
            eventLoop.post { [self] in
                guard thisAttempt == attempt, case .resolving = phase else { return }
                guard let address else {
                    logger.warning("redis host does not resolve", metadata: ["redis": "\(configuration)"], source: "Gateway")
                    return retryLater()
                }
                open(address)
            }
        }
    }

    /// The first IPv4 or IPv6 address of `host` (an address stays as it is). Blocking: off
    /// the loops only.
    static func resolve(_ host: String) -> String? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch first.pointee.ai_family {
        case AF_INET:
            var address = first.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        case AF_INET6:
            var address = first.pointee.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        default:
            return nil
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func open(_ address: String) {
        guard let made = redisAsyncConnect(address, Int32(configuration.port)) else { return retryLater() }
        if made.pointee.err != 0 {
            logger.warning("redis connect failed", metadata: ["redis": "\(configuration)", "error": "\(String(cString: made.pointee.errstr))"], source: "Gateway")
            redisAsyncFree(made)
            return retryLater()
        }
        // Unmanaged: passUnretained. The context is freed (by hiredis after a disconnect, or
        // by close()) before this connection goes away.
        made.pointee.data = Unmanaged.passUnretained(self).toOpaque()
        guard redisLibeventAttach(made, eventLoop.base) == REDIS_OK else {
            redisAsyncFree(made)
            return retryLater()
        }
        redisAsyncSetConnectCallback(made, redisConnectCallback)
        redisAsyncSetDisconnectCallback(made, redisDisconnectCallback)
        context = made
        phase = .connecting(deadline: .now + configuration.connectTimeout)
        arm()
        // Queued before any other command, so they run first on the new connection.
        if let password = configuration.password {
            let arguments = [Array("AUTH".utf8)] + (configuration.username.map { [Array($0.utf8)] } ?? []) + [Array(password.utf8)]
            setUp(arguments, what: "AUTH")
        }
        if configuration.database != 0 {
            setUp([Array("SELECT".utf8), Array(String(configuration.database).utf8)], what: "SELECT")
        }
        let roleName = if case .subscriber = role { "subscriber" } else { "commands" }
        setUp([Array("CLIENT".utf8), Array("SETNAME".utf8), Array("omg-\(roleName)-\(health.instance)".utf8)], what: "CLIENT SETNAME")
        if case .subscriber(let channel, _, _) = role {
            var arguments = [Array("SUBSCRIBE".utf8), Array(channel.utf8)]
            _ = Self.withArgv(&arguments) { argc, argv, argvlen in
                redisAsyncCommandArgv(made, redisSubscriptionCallback, nil, argc, argv, argvlen)
            }
        }
    }

    /// hiredis: a reply on the subscription (`subscribe` confirmed, or a `message`); nil
    /// when the connection goes.
    func subscriptionReply(_ reply: UnsafeMutablePointer<redisReply>?) {
        guard let reply, case .subscriber(_, _, let events) = role, case .array(let parts) = Self.value(of: reply), parts.count == 3 else {
            return
        }
        switch parts[0].text {
        case "subscribe":
            lastHeard = .now
            health.recordSuccess()
            health.setSubscribed(true)
            events(.linked)
            arm()
        case "message":
            lastHeard = .now
            if let payload = parts[2].bytes { events(.message(payload)) }
        default:
            break
        }
    }

    /// The subscription is gone: tell the owner once.
    func unlink() {
        guard lastHeard != nil, case .subscriber(_, _, let events) = role else { return }
        lastHeard = nil
        health.setSubscribed(false)
        events(.unlinked)
    }

    /// Sends a set-up command; an error reply (a wrong password, a database that does not
    /// exist) drops the connection, to be tried again later. Never logs the arguments.
    func setUp(_ arguments: [[UInt8]], what: String) {
        send(arguments, past: true) { [self] result in
            guard case .failure(.refused(let message)) = result else { return }
            logger.error("redis refused \(what)", metadata: ["redis": "\(configuration)", "error": "\(message)"], source: "Gateway")
            if let context { redisAsyncDisconnect(context) }
        }
    }

    /// hiredis: the socket connected (`status` REDIS_OK) or could not (then the context is
    /// freed by hiredis once this returns).
    func connected(_ from: UnsafePointer<redisAsyncContext>, status: Int32) {
        guard let context, UnsafePointer(context) == from else { return }
        guard status == REDIS_OK else {
            self.context = nil
            failAll(.connectionLost)
            return retryLater()
        }
        phase = .ready
        backoff = Self.firstBackoff
        health.connectionUp()
        logger.info("redis connected", metadata: ["redis": "\(configuration)"], source: "Gateway")
        arm()
    }

    /// hiredis: the connection closed; the context is freed once this returns.
    func disconnected(_ from: UnsafePointer<redisAsyncContext>, status: Int32) {
        guard let context, UnsafePointer(context) == from else { return }
        self.context = nil
        if case .ready = phase {
            health.connectionDown()
            logger.warning("redis connection lost", metadata: ["redis": "\(configuration)"], source: "Gateway")
        }
        failAll(.connectionLost)
        unlink()
        retryLater()
    }

    func retryLater() {
        guard case .closed = phase else {
            let jitter = Double.random(in: 0.8...1.2)
            phase = .retrying(at: .now + backoff * jitter)
            backoff = min(backoff * 2, Self.maxBackoff)
            arm()
            return
        }
    }
}

/// The connection whose context this is (unretained; see `RedisConnection.open`).
