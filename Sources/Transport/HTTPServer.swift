import Foundation
import HTTPInterface
import Logging
import Observability
import GatewaySupport

/// Something attached to one loop by whoever assembles the server (a Redis connection, a
/// periodic sync): started on that loop once it runs, closed with it (on the loop's thread,
/// or after it ended).
public protocol LoopAttachment: AnyObject, Sendable {
    func start()
    func close()
}

/// What the assembler attaches to one loop: the origin client and Redis connection its
/// requests get in `LoopServices` (the transport builds neither), and everything to start
/// and close with it, in order.
public struct LoopAttachments {
    public var origin: (any OriginSending)?
    public var redis: (any RedisCommanding)?
    public var attachments: [any LoopAttachment]

    public init(origin: (any OriginSending)? = nil, redis: (any RedisCommanding)? = nil, attachments: [any LoopAttachment] = []) {
        self.origin = origin
        self.redis = redis
        self.attachments = attachments
    }
}

/// The HTTP/1.1 server: `threads` event loops, each with its own listening socket on one
/// shared port (`SO_REUSEPORT`) and its own connections (`ServerLoop`), handing every request
/// to one `ServerApplication`.
///
/// `start`, `port` and `shutdown` may be called from any thread except a loop's own.
public final class HTTPServer: Sendable {
    private let core: ServerCore
    private let state = Locked<State>(State())

    private struct State: @unchecked Sendable {
        var loops: [ServerLoop] = []
        var port = 0
        var started = false
        var stopped = false
    }

    /// - Parameter metrics: where request metrics go (a `/metrics` route should render the
    ///   same instance).
    public init(configuration: HTTPServerConfiguration, application: any ServerApplication, logger: Logger, metrics: GatewayMetrics = GatewayMetrics()) {
        core = ServerCore(configuration: configuration, application: application, logger: logger, metrics: metrics)
    }

    /// The port the server listens on; meaningful after `start`.
    public var port: Int { state.withLock { $0.port } }

    /// The kernel thread ids of the running loops (tests read their CPU time).
    package var loopKernelThreadIDs: [Int32] {
        state.withLock { $0.loops.map { $0.loop.kernelThreadID.load(ordering: .acquiring) } }
    }

    /// Over every loop: the connections that hold a read buffer now, and the spare buffers
    /// the loops keep (tests: a connection waiting between requests holds none). Asks each
    /// loop on its own thread.
    package func readStorage() async -> (holding: Int, spare: Int) {
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

    /// Open client connections now, across all loops: those speaking HTTP/1.x (TLS
    /// handshakes not yet done included) and those speaking HTTP/2. Any thread.
    public var openConnections: (http1: Int, http2: Int) {
        let http2 = core.http2Connections.load(ordering: .relaxed)
        return (max(0, core.connections.load(ordering: .relaxed) - http2), http2)
    }

    /// The public listener's TLS context, which `TLSServerContext.reload` renews; nil for HTTP.
    public var tls: TLSServerContext? { core.configuration.tls }

    /// Binds the port and starts every loop. Returns once the server accepts connections.
    ///
    /// - Parameter attach: called once per loop, in order, before the loops start: what to
    ///   attach to that loop (its Redis connection, timers). Their `start` runs once every
    ///   loop runs.
    /// - Throws: `TransportError` when the address does not resolve, the port is taken, or
    ///   libevent cannot be set up; nothing is left running then.
    public func start(attach: (_ index: Int, _ loop: EventLoop) -> LoopAttachments = { _, _ in LoopAttachments() }) throws(TransportError) {
        let configuration = core.configuration
        var loops: [ServerLoop] = []
        var port = configuration.port
        let threads = max(1, configuration.threads)
        for index in 0..<threads {
            // The first socket checks that no other process listens there; the loops' others
            // share the port with it.
            let socket = try ListeningSocket.open(
                host: configuration.host, port: port, backlog: configuration.listenBacklog, exclusive: index == 0 && !configuration.sharesPort)
            if index == 0 { port = ListeningSocket.port(of: socket) }
            do {
                let loop = try EventLoop(name: "gateway-loop-\(index)")
                loops.append(try ServerLoop(loop: loop, core: core, socket: socket))
            } catch {
                close(socket)
                loops.forEach { $0.free() }
                throw error
            }
        }
        for serverLoop in loops { serverLoop.siblings = loops }
        for (index, serverLoop) in loops.enumerated() { serverLoop.attach(attach(index, serverLoop.loop)) }
        for serverLoop in loops { serverLoop.loop.start() }
        for serverLoop in loops {
            for attachment in serverLoop.attachments { attachment.start() }
        }
        let boundPort = port
        state.withLock { state in
            precondition(!state.started, "HTTPServer.start called twice")
            state.loops = loops
            state.port = boundPort
            state.started = true
        }
        let (url, protocols, scope) = Self.describe(configuration, port: boundPort)
        core.logger.info(
            "listening on \(url) (\(protocols.joined(separator: ", "))\(scope.map { "; \($0)" } ?? ""))",
            metadata: [
                "host": .string(configuration.host), "port": .stringConvertible(boundPort), "loops": .stringConvertible(threads),
                "url": .string(url), "protocols": .string(protocols.joined(separator: ",")),
            ], source: "Gateway")
    }

    /// Where a client reaches this listener and what it may speak there: the URL (a loopback
    /// one for a wildcard address, with `scope` saying so), and the protocols in the order
    /// the server prefers them.
    static func describe(_ configuration: HTTPServerConfiguration, port: Int) -> (url: String, protocols: [String], scope: String?) {
        let secure = configuration.tls != nil
        let protocols = switch (secure, configuration.http2.enabled) {
        case (true, true): ["h2", "HTTP/1.1"]
        case (false, true): ["HTTP/1.1", "h2c"]
        default: ["HTTP/1.1"]
        }
        var host = configuration.host
        var scope: String?
        switch host {
        case "0.0.0.0", "":
            (host, scope) = ("127.0.0.1", "every IPv4 address")
        case "::", "[::]":
            (host, scope) = ("[::1]", "every address")
        default:
            if host.contains(":"), !host.hasPrefix("[") { host = "[\(host)]" }
        }
        return ("\(secure ? "https" : "http")://\(host):\(port)", protocols, scope)
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
            core.logger.warning("shutdown grace ended with requests unanswered", metadata: ["in_flight": .stringConvertible(unfinished)], source: "Gateway")
        }
        core.logger.info("stopped", source: "Gateway")
    }
}
