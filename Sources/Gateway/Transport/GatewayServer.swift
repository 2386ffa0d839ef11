import Foundation
import GatewayModels
import HTTPInterface
import Logging
import Observability

/// The HTTP server: `threads` event loops, each with its own listening socket on one shared
/// port (`SO_REUSEPORT`) and its own connections (`ServerLoop`).
///
/// `start`, `port` and `shutdown` may be called from any thread except a loop's own.
public final class GatewayServer: Sendable {
    private let core: ServerCore
    private let state = Locked<State>(State())

    private struct State: @unchecked Sendable {
        var loops: [ServerLoop] = []
        var port = 0
        var started = false
        var stopped = false
    }

    /// - Parameter metrics: where request metrics go; the router's `/metrics` route should
    ///   render the same instance.
    /// - Parameter replicaListener: with `--redis-url`, what hears other replicas' writes
    ///   (`GatewayApplication.OriginRoutes.replicaListener`); the first loop subscribes for it.
    public init(
        configuration: GatewayConfiguration, router: Router, logger: Logger, metrics: GatewayMetrics = GatewayMetrics(),
        replicaListener: (any ReplicaListener)? = nil
    ) {
        core = ServerCore(configuration: configuration, router: router, logger: logger, metrics: metrics, replicaListener: replicaListener)
    }

    /// The port the server listens on; meaningful after `start`.
    public var port: Int { state.withLock { $0.port } }

    /// The kernel thread ids of the running loops (tests read their CPU time).
    var loopKernelThreadIDs: [Int32] {
        state.withLock { $0.loops.map { $0.loop.kernelThreadID.load(ordering: .acquiring) } }
    }

    /// With `--redis-url`: whether every connection to Redis is up (each loop's, and the
    /// subscription's when the server has one).
    var redisReady: Bool {
        let expected = state.withLock { $0.loops.count + ($0.loops.first?.subscriber == nil ? 0 : 1) }
        return core.configuration.redis != nil && core.redisHealth.connectedCount == expected
    }

    /// Whether the subscription to other replicas' writes works now.
    var replicaLinked: Bool { core.redisHealth.isSubscribed }

    /// Names this server's connections in Redis (`omg-commands-<instance>`).
    var redisInstance: String { core.redisHealth.instance }

    /// The per-client budgets (tests look into them); nil without rate limits.
    var rateLimiter: RateLimiter? { core.rateLimiter }

    /// Over every loop: the connections that hold a read buffer now, and the spare buffers
    /// the loops keep (tests: a connection waiting between requests holds none). Asks each
    /// loop on its own thread.
    func readStorage() async -> (holding: Int, spare: Int) {
        let loops = state.withLock { $0.loops }
        var total = (holding: 0, spare: 0)
        for server in loops {
            let counts = await withCheckedContinuation { (done: CheckedContinuation<(holding: Int, spare: Int), Never>) in
                server.loop.post { done.resume(returning: server.readStorage) }
            }
            total.holding += counts.holding
            total.spare += counts.spare
        }
        return total
    }

    /// Requests read but not answered yet.
    public var inFlight: Int { core.inFlight.load(ordering: .relaxed) }

    /// Binds the port and starts every loop. Returns once the server accepts connections.
    ///
    /// - Throws: `TransportError` when the address does not resolve, the port is taken, or
    ///   libevent cannot be set up; nothing is left running then.
    public func start() throws(TransportError) {
        let configuration = core.configuration
        var loops: [ServerLoop] = []
        var port = configuration.port
        var originTLS: TLSContext?
        if let origin = configuration.origin.url {
            let endpoint: OriginEndpoint
            do {
                endpoint = try OriginEndpoint(url: origin)
            } catch {
                throw TransportError(error.description)
            }
            // Image hosts may be https even when the origin is not.
            if endpoint.scheme == .https || !configuration.images.allowedHosts.isEmpty {
                originTLS = try TLSContext.client(caFile: configuration.origin.caFile)
            }
        }
        let threads = max(1, configuration.threads)
        for index in 0..<threads {
            let socket = try ListeningSocket.open(host: configuration.host, port: port, backlog: configuration.listenBacklog)
            if index == 0 { port = ListeningSocket.port(of: socket) }
            do {
                let loop = try EventLoop(name: "gateway-loop-\(index)")
                loops.append(try ServerLoop(loop: loop, core: core, socket: socket, originTLS: originTLS))
            } catch {
                close(socket)
                loops.forEach { $0.free() }
                throw error
            }
        }
        for serverLoop in loops { serverLoop.siblings = loops }
        if let first = loops.first, let publisher = first.redis, let redis = configuration.redis, let listener = core.replicaListener {
            let limiter = core.rateLimiter
            first.subscriber = RedisConnection(
                loop: first.loop, configuration: redis, health: core.redisHealth, logger: core.logger, metrics: core.metrics,
                role: .subscriber(channel: listener.channel, publisher: publisher) { event in
                    switch event {
                    case .linked: listener.replicaLink(up: true)
                    case .unlinked: listener.replicaLink(up: false)
                    case .message(let payload):
                        if let limiter, RateLimitSync.apply(payload, to: limiter) { return }
                        listener.replicaMessage(payload)
                    }
                })
        }
        if let limiter = core.rateLimiter, limiter.shared, let first = loops.first, let redis = first.redis, let listener = core.replicaListener,
            let origin = configuration.origin.url
        {
            let namespace = ReplicaNamespace.rateLimits(origin: origin, generation: configuration.origin.generation)
            first.rateLimitSync = RateLimitSync(limiter: limiter, redis: redis, prefix: namespace, channel: listener.channel, metrics: core.metrics)
        }
        for serverLoop in loops { serverLoop.loop.start() }
        for serverLoop in loops {
            serverLoop.redis?.start()
            serverLoop.subscriber?.start()
            serverLoop.rateLimitSync?.start()
        }
        let boundPort = port
        state.withLock { state in
            precondition(!state.started, "GatewayServer.start called twice")
            state.loops = loops
            state.port = boundPort
            state.started = true
        }
        core.logger.info(
            "listening",
            metadata: ["host": .string(configuration.host), "port": .stringConvertible(boundPort), "loops": .stringConvertible(threads)])
        if let redis = configuration.redis {
            // The URL without its password.
            core.logger.info("sharing state through redis", metadata: ["redis": .string(redis.description)])
        }
    }

    /// Stops gracefully: no new connections, replies carry `Connection: close`, in-flight
    /// requests get up to the configured grace period, then every loop ends. Blocks until
    /// they have. Calling it again does nothing.
    public func shutdown() {
        let loops: [ServerLoop] = state.withLock { state in
            guard state.started, !state.stopped else { return [] }
            state.stopped = true
            return state.loops
        }
        guard !loops.isEmpty else { return }
        core.drain.begin()
        // No new connections; idle keep-alive connections close, busy ones after their answer.
        for serverLoop in loops { serverLoop.loop.post { serverLoop.drain() } }
        let deadline = ContinuousClock.now + core.configuration.shutdownGrace
        while core.inFlight.load(ordering: .relaxed) > 0 && ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.005)
        }
        // A short pause lets replies written just now leave the output buffers.
        for serverLoop in loops { serverLoop.loop.stop(after: .milliseconds(50)) }
        for serverLoop in loops { serverLoop.loop.join() }
        // Counted after the loops ended: a keep-alive request may have arrived meanwhile.
        let unfinished = core.inFlight.load(ordering: .relaxed)
        if unfinished == 0 {
            for serverLoop in loops { serverLoop.free() }
        } else {
            // Handlers still hold connections; the process is ending anyway.
            core.logger.warning("shutdown grace ended with requests unanswered", metadata: ["in_flight": .stringConvertible(unfinished)])
        }
        core.logger.info("stopped")
    }
}
