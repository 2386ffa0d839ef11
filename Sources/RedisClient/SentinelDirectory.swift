import Foundation
import GatewaySupport
import HTTPInterface
import Logging
import Observability
import Transport

/// Which server is the primary, as Redis Sentinel says, for every Redis connection of one
/// gateway (`redis-sentinel://`).
///
/// - At a connection's first attempt, and after each failure on the primary, it asks the
///   sentinels in turn (``SentinelQuery``; one query at a time, whoever asks meanwhile gets
///   its answer). When none answers, the last primary known is tried again.
/// - It stays subscribed to `+switch-master` on one sentinel (the next one when that one
///   fails, a `PING` every second on the subscription); on that message, or any answer that
///   names another primary, every registered connection moves at once.
///
/// Threads: queries, the subscription and the waiting list live on `loop` (the server's
/// first); ``node(after:on:then:)``, ``connected(to:)`` and ``status`` may be called from
/// any loop (what they share is under `state`'s lock). ``start()`` and ``close()`` belong to
/// the owner (the server).
package final class SentinelDirectory: RedisNodeSource, LoopAttachment, @unchecked Sendable {
    private let eventLoop: EventLoop
    package var loop: any LoopExecutor { eventLoop }
    private let configuration: RedisConfiguration
    private let sentinel: RedisConfiguration.Sentinel
    private let tls: TLSContext?
    private let logger: Logger
    private let metrics: GatewayMetrics?
    private let instance: String?
    /// The subscription to `+switch-master`; on `loop`.
    private var subscription: RedisConnection?
    /// The sentinel asked first (the last that answered); on `loop`.
    private var first = 0
    private var querying = false
    /// Connections waiting for the query's answer; on `loop`.
    private var waiting: [(loop: EventLoop, then: @Sendable (RedisNode?) -> Void)] = []
    private var lastAnswer: ContinuousClock.Instant?
    /// Whether the last query found no sentinel that named a primary (said once per run).
    private var silent = false

    private struct State {
        var primary: RedisNode?
        /// When this server first saw the primary fail (a connection lost or refused, or a
        /// `+switch-master`), until a connection to a primary is ready again.
        var lostAt: ContinuousClock.Instant?
        /// A failover this server follows and has not finished (no connection ready on the
        /// new primary yet): when it learned of it.
        var switchedAt: (wall: Date, instant: ContinuousClock.Instant)?
        var lastFailover: (atMillis: Int64, seconds: Double)?
        /// Time without a primary in stretches that ended.
        var missing: Duration = .zero
        /// Time without a primary the metric has counted.
        var reported: Duration = .zero
        var connections: [WeakConnection] = []
    }

    private struct WeakConnection {
        weak var connection: RedisConnection?
    }

    private let state = Locked(State())

    /// A query that waited this long ago still answers a connection that fails meanwhile.
    static let answerReuse: Duration = .milliseconds(200)

    /// - Parameter tls: with `rediss-sentinel://`, the client context for the sentinels (the
    ///   same as the servers').
    /// - Parameter instance: names the subscription in the sentinel's `CLIENT LIST`
    ///   (`omg-subscriber-<instance>`, as the server's other connections).
    package init(
        loop: EventLoop, configuration: RedisConfiguration, tls: TLSContext?, logger: Logger, metrics: GatewayMetrics?, instance: String? = nil
    ) {
        self.instance = instance
        precondition(configuration.sentinel != nil, "SentinelDirectory needs a sentinel URL")
        eventLoop = loop
        self.configuration = configuration
        sentinel = configuration.sentinel!
        self.tls = tls
        self.logger = logger
        self.metrics = metrics
        if let metrics {
            _ = metrics.counter("gateway_redis_failovers_total")
            let missing = metrics.floatingCounter("gateway_redis_primary_missing_seconds_total")
            metrics.onScrape { [weak self] in
                guard let self else { return }
                missing.increment(by: self.uncountedTimeWithoutPrimary())
            }
        }
    }

    /// Connections to move when the primary changes (held weakly: the server owns them).
    package func register(_ connection: RedisConnection) {
        state.withLock { $0.connections.append(WeakConnection(connection: connection)) }
    }

    /// Subscribes to `+switch-master` (on `loop`, posted there). Any thread.
    package func start() {
        eventLoop.execute { [self] in
            guard subscription == nil else { return }
            var sentinelSide = configuration
            sentinelSide.sentinel = nil
            sentinelSide.username = nil
            sentinelSide.password = sentinel.password
            sentinelSide.database = 0
            let made = RedisConnection(
                loop: eventLoop, configuration: sentinelSide, tls: tls, health: instance.map(RedisHealth.init(instance:)) ?? RedisHealth(), logger: logger,
                nodes: SentinelRotation(sentinel.nodes),
                role: .subscriber(channel: "+switch-master", heartbeat: .ping) { [weak self] event in
                    guard let self else { return }
                    switch event {
                    case .linked:
                        // A switch may have come while no subscription was up.
                        self.ask(refresh: true)
                    case .message(let payload): self.switched(payload)
                    case .unlinked: break
                    }
                })
            subscription = made
            made.start()
        }
    }

    /// Closes the subscription and answers every waiting connection (nil). On `loop`'s
    /// thread, or after the loop ended.
    package func close() {
        subscription?.close()
        subscription = nil
        let waiters = waiting
        waiting = []
        for waiter in waiters { waiter.loop.execute { waiter.then(nil) } }
    }

    // MARK: RedisNodeSource

    package var followsFailovers: Bool { true }

    package func describe(_ node: RedisNode?) -> String { "\(configuration) primary \(node.map(\.description) ?? "unknown")" }

    package func node(after failed: RedisNode?, on loop: EventLoop, then: @escaping @Sendable (RedisNode?) -> Void) {
        let known: RedisNode? = state.withLock { state in
            if let failed, failed == state.primary, state.lostAt == nil { state.lostAt = .now }
            return state.primary
        }
        if let known, known != failed { return then(known) }
        eventLoop.execute { [self] in
            if let lastAnswer, ContinuousClock.now - lastAnswer < Self.answerReuse, let current = state.withLock({ $0.primary }), current != failed {
                return loop.execute { then(current) }
            }
            waiting.append((loop, then))
            ask(refresh: false)
        }
    }

    package func connected(to node: RedisNode) {
        let now = ContinuousClock.now
        let finished: Double? = state.withLock { state in
            guard state.primary == node else { return nil }
            var seconds: Double?
            if let switched = state.switchedAt {
                let began = min(state.lostAt ?? switched.instant, switched.instant)
                let duration = now - began
                seconds = Self.seconds(duration)
                state.lastFailover = (Int64(switched.wall.timeIntervalSince1970 * 1000), seconds!)
                state.switchedAt = nil
            }
            if let lostAt = state.lostAt {
                state.missing += now - lostAt
                state.lostAt = nil
            }
            return seconds
        }
        if let finished {
            logger.info("redis failover followed", metadata: ["redis": "\(describe(node))", "seconds": "\(finished)"], source: "Gateway")
        }
    }

    /// The primary in use and the last failover (for `/readyz`).
    package var status: RedisPrimaryStatus {
        state.withLock { RedisPrimaryStatus(primary: $0.primary?.description, lastFailover: $0.lastFailover) }
    }

    // MARK: Asking, and hearing of switches (on `loop`)

    /// Asks the sentinels in turn, unless a query runs; `refresh`: even with no connection
    /// waiting (the answer may move them).
    private func ask(refresh: Bool) {
        guard !querying, refresh || !waiting.isEmpty else { return }
        querying = true
        query(tried: 0)
    }

    private func query(tried: Int) {
        guard tried < sentinel.nodes.count else { return answered(nil) }
        let index = (first + tried) % sentinel.nodes.count
        let node = sentinel.nodes[index]
        SentinelQuery.ask(
            node, masterName: sentinel.masterName, password: sentinel.password, tls: tls,
            timeout: configuration.connectTimeout + configuration.commandTimeout, on: eventLoop
        ) { [self] answer in
            switch answer {
            case .primary(let primary):
                first = index
                answered(primary)
            case .unknown:
                logger.warning("redis sentinel does not know the primary", metadata: ["sentinel": "\(node)", "master": "\(sentinel.masterName)"], source: "Gateway")
                query(tried: tried + 1)
            case .failed(let why):
                logger.warning("redis sentinel did not answer", metadata: ["sentinel": "\(node)", "error": "\(why)"], source: "Gateway")
                query(tried: tried + 1)
            }
        }
    }

    private func answered(_ found: RedisNode?) {
        querying = false
        lastAnswer = .now
        if let found {
            silent = false
            use(found, why: "the sentinels named it")
        } else if !silent {
            silent = true
            logger.error("no redis sentinel named the primary: trying the last one known", metadata: ["redis": "\(configuration)"], source: "Gateway")
        }
        let answer = found ?? state.withLock { $0.primary }
        let waiters = waiting
        waiting = []
        for waiter in waiters { waiter.loop.execute { waiter.then(answer) } }
    }

    /// `+switch-master <name> <old ip> <old port> <new ip> <new port>`.
    private func switched(_ payload: [UInt8]) {
        let parts = String(decoding: payload, as: UTF8.self).split(separator: " ")
        guard parts.count == 5, parts[0] == sentinel.masterName, let port = Int(parts[4]), (1...65535).contains(port) else { return }
        use(RedisNode(host: String(parts[3]), port: port), why: "+switch-master")
    }

    /// Makes `node` the primary; when it was another, every connection moves to it.
    private func use(_ node: RedisNode, why: String) {
        let (previous, connections): (RedisNode?, [RedisConnection]) = state.withLock { state in
            let previous = state.primary
            guard previous != node else { return (previous, []) }
            state.primary = node
            guard previous != nil else { return (nil, []) }
            let now = ContinuousClock.now
            state.switchedAt = (Date(), now)
            if state.lostAt == nil { state.lostAt = now }
            state.connections.removeAll { $0.connection == nil }
            return (previous, state.connections.compactMap(\.connection))
        }
        guard let previous, previous != node else { return }
        metrics?.counter("gateway_redis_failovers_total").increment()
        logger.warning("redis primary moved", metadata: ["from": "\(previous)", "to": "\(node)", "why": "\(why)"], source: "Gateway")
        for connection in connections { connection.eventLoop.execute { connection.move(to: node) } }
    }

    // MARK: Time without a primary

    /// The seconds without a primary since the last scrape (the stretch running included).
    private func uncountedTimeWithoutPrimary() -> Double {
        let now = ContinuousClock.now
        return state.withLock { state in
            let total = state.missing + (state.lostAt.map { now - $0 } ?? .zero)
            defer { state.reported = total }
            return Self.seconds(total - state.reported)
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
