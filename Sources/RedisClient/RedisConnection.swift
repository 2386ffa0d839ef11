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
    public var server: (host: String, port: Int)? { (configuration.host, configuration.port) }
    /// `--redis-wait-replicas`, or 1 while the primary reports a replica (`ROLE`, asked at
    /// every connection and every ``heartbeatInterval``); `WAIT` gives up after half of
    /// `--redis-timeout`, so its answer comes before the command's deadline.
    public var replicaWait: RedisReplicaWait? {
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

    /// What the connection is for.
    package enum Role {
        /// Commands (`send`).
        case commands
        /// A subscription to `channel` (Redis then takes no other command on it). Every
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
    package init(
        loop: EventLoop, configuration: RedisConfiguration, tls: TLSContext? = nil, health: RedisHealth, logger: Logger,
        metrics: GatewayMetrics? = nil, role: Role = .commands, name: String = "commands", durable: RedisConnection? = nil
    ) {
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
        if configuration.tls != nil, tls == nil {
            logger.error("redis needs TLS and has no TLS context", metadata: ["redis": "\(configuration)"], source: "Gateway")
            return retryLater()
        }
        let made: OutboundStream
        do {
            made = try OutboundStream(
                loop: eventLoop, address: address, port: configuration.port, tls: configuration.tls == nil ? nil : tls,
                serverName: configuration.host
            ) { [unowned self] event in
                // unowned: the stream is closed (and reports nothing more) before this
                // connection goes away (dropStream, close).
                streamEvent(event)
            }
        } catch {
            logger.warning("redis connect failed", metadata: ["redis": "\(configuration)", "error": "\(error)"], source: "Gateway")
            return retryLater()
        }
        stream = made
        reader = redisReaderCreate()
        streamConnected = false
        lastReply = .now
        phase = .connecting(deadline: .now + configuration.connectTimeout)
        arm()
        // Sent before any other command, so they run first on the new connection (the
        // stream keeps them until it connects).
        if let password = configuration.password {
            let arguments = [Array("AUTH".utf8)] + (configuration.username.map { [Array($0.utf8)] } ?? []) + [Array(password.utf8)]
            setUp(arguments, what: "AUTH")
        }
        if configuration.database != 0 {
            setUp([Array("SELECT".utf8), Array(String(configuration.database).utf8)], what: "SELECT")
        }
        let roleName = if case .subscriber = role { "subscriber" } else { name }
        // Before the connection is ready, so the replicas to wait for are known by then.
        if case .commands = role { askRole(.setUp) }
        // The last set-up command: its answer makes the connection ready.
        setUp([Array("CLIENT".utf8), Array("SETNAME".utf8), Array("omg-\(roleName)-\(health.instance)".utf8)], what: "CLIENT SETNAME") {
            [self] in answered()
        }
        if case .subscriber(let channel, _, _) = role {
            // Not in `sent`: its confirmation, and every message after it, are the
            // subscription's.
            _ = Self.write([Array("SUBSCRIBE".utf8), Array(channel.utf8)], to: made)
        }
    }

    /// Asks Redis its `ROLE` (`sending`: `.setUp` or `.probe`); a primary's answer lists its
    /// connected replicas.
    func askRole(_ sending: Sending) {
        nextRole = .now + Self.heartbeatInterval
        send([Array("ROLE".utf8)], as: sending) { [self] result in
            guard case .success(.array(let parts)) = result, parts.count >= 3, parts[0].text == "master", case .array(let replicas) = parts[2] else {
                return
            }
            let before = health.setReplicasConnected(replicas.count)
            // Said once per change: keyed creates fail (503) while fewer replicas than asked
            // for can acknowledge their records.
            if before != replicas.count, let wanted = configuration.waitReplicas, wanted > replicas.count {
                logger.warning(
                    "redis has fewer replicas than --redis-wait-replicas: keyed creates are refused until more attach",
                    metadata: ["redis": "\(configuration)", "replicas": "\(replicas.count)", "wanted": "\(wanted)"], source: "Gateway")
            }
        }
    }

    /// What the stream reports, on the loop.
    func streamEvent(_ event: OutboundStream.Event) {
        switch event {
        case .connected: streamConnected = true
        case .received(let bytes): received(bytes)
        case .closed(let reason): disconnected(reason: reason)
        }
    }

    /// Bytes from Redis: fed to the reader, and every whole reply taken out in order.
    func received(_ bytes: UnsafeRawBufferPointer) {
        guard let reader, let base = bytes.baseAddress else { return }
        guard redisReaderFeed(reader, base.assumingMemoryBound(to: CChar.self), bytes.count) == REDIS_OK else {
            return protocolError(reader)
        }
        while self.reader == reader {
            var object: UnsafeMutableRawPointer?
            guard redisReaderGetReply(reader, &object) == REDIS_OK else { return protocolError(reader) }
            guard let object else { return }
            let reply = object.assumingMemoryBound(to: redisReply.self)
            lastReply = .now
            if sentHead < sent.count {
                let id = sent[sentHead]
                sentHead += 1
                if sentHead == sent.count {
                    sent.removeAll(keepingCapacity: true)
                    sentHead = 0
                } else if sentHead > 1024 {
                    // A busy connection may never be idle: keep the array bounded.
                    sent.removeFirst(sentHead)
                    sentHead = 0
                }
                replied(id: id, reply: reply)
            } else {
                subscriptionReply(reply)
            }
            freeReplyObject(object)
        }
    }

    /// Redis sent what is not RESP (or not Redis at all: a TLS port spoken to in plain): the
    /// connection is dropped and made again.
    func protocolError(_ reader: UnsafeMutablePointer<redisReader>) {
        let message = withUnsafeBytes(of: reader.pointee.errstr) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        logger.warning("redis sent what is not a reply: reconnecting", metadata: ["redis": "\(configuration)", "error": "\(message)"], source: "Gateway")
        dropStream()
        retryLater()
    }

    /// A reply on the subscription (`subscribe` confirmed, or a `message`).
    func subscriptionReply(_ reply: UnsafeMutablePointer<redisReply>) {
        let value = Self.value(of: reply)
        if case .error(let message) = value {
            // An ACL that denies the channel: the link deadline makes the connection again.
            return logger.error("redis refused SUBSCRIBE", metadata: ["redis": "\(configuration)", "error": "\(message)"], source: "Gateway")
        }
        guard case .subscriber(_, _, let events) = role, case .array(let parts) = value, parts.count == 3 else {
            return
        }
        switch parts[0].text {
        case "subscribe":
            lastHeard = .now
            if case .ready = phase { phase = .ready(linkBy: nil) }
            health.recordSuccess()
            // The owner first: whoever reads `isSubscribed` true finds it has acted on the link.
            events(.linked)
            health.setSubscribed(true)
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
        events(.unlinked)
        health.setSubscribed(false)
    }

    /// Sends a set-up command; an error reply (a wrong password, a database that does not
    /// exist) drops the connection, to be tried again later; any other reply runs
    /// `then`. Never logs the arguments.
    func setUp(_ arguments: [[UInt8]], what: String, then: @escaping () -> Void = {}) {
        send(arguments, as: .setUp) { [self] result in
            if case .success = result { return then() }
            guard case .failure(.refused(let message)) = result else { return }
            logger.error("redis refused \(what)", metadata: ["redis": "\(configuration)", "error": "\(message)"], source: "Gateway")
            guard stream != nil else { return }
            dropStream()
            retryLater()
        }
    }

    /// Redis answered the set-up on this connection (with TLS: after the handshake and the
    /// certificate check): from now on it is up.
    func answered() {
        guard case .connecting = phase else { return }
        if case .subscriber = role {
            phase = .ready(linkBy: lastHeard == nil ? .now + Self.heartbeatTimeout : nil)
        } else {
            phase = .ready(linkBy: nil)
        }
        backoff = Self.firstBackoff
        health.connectionUp()
        logger.info("redis connected", metadata: ["redis": "\(configuration)"], source: "Gateway")
        arm()
    }

    /// The stream ended: it never connected (refused, a TLS failure) or the connection was
    /// lost. Says why, fails what waits, and tries again later.
    func disconnected(reason: String) {
        if case .ready = phase {
            logger.warning("redis connection lost", metadata: ["redis": "\(configuration)", "error": "\(reason)"], source: "Gateway")
        } else {
            var why = reason
            if configuration.tls != nil, streamConnected, !reason.contains("certificate") {
                why += "; the server ended the connection after the TLS handshake: does it require a client certificate (--redis-cert, --redis-key)?"
            }
            logger.warning("redis connect failed", metadata: ["redis": "\(configuration)", "error": "\(why)"], source: "Gateway")
        }
        dropStream()
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

