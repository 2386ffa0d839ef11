import CEvent
import HTTPInterface
import Observability
import Tracing

/// Requests to origins from one loop: one connection pool per origin, and a non-blocking DNS
/// resolver (evdns), all on the loop's thread.
///
/// Invariant: `send(_:to:completion:)` and `close()` run on `loop`'s thread; the async
/// `send(_:to:)` may be called from anywhere and hops to the loop.
public final class OriginClient: OriginSending, LoopAttachment, @unchecked Sendable {
    /// The loop whose thread this client runs on.
    let eventLoop: EventLoop
    public var loop: any LoopExecutor { eventLoop }
    private let configuration: OriginClientConfiguration
    private let tls: TLSContext?
    private let metrics: GatewayMetrics?
    /// Records client spans of requests whose trace is recorded; nil without tracing.
    private let tracer: Tracer?
    /// Owned by this client; freed in close().
    private var dns: OpaquePointer?
    private var pools: [OriginEndpoint: OriginPool] = [:]
    /// Set by ``close()``: later requests fail at once.
    private var closed = false

    /// Creates the client for `loop`. Call before the loop starts, or on its thread. `tls`
    /// (a client context) is needed for https origins and image hosts.
    public init(loop: EventLoop, configuration: OriginClientConfiguration, tls: TLSContext?, metrics: GatewayMetrics? = nil, tracer: Tracer? = nil) {
        eventLoop = loop
        self.configuration = configuration
        self.tls = tls
        self.metrics = metrics
        self.tracer = tracer
        // Reads /etc/resolv.conf once, here, at set-up; lookups never block afterwards.
        dns = evdns_base_new(loop.base, EVDNS_BASE_INITIALIZE_NAMESERVERS)
            ?? evdns_base_new(loop.base, 0)
    }

    /// Sends `request` to `endpoint`. On the loop thread; `completion` runs there, exactly
    /// once.
    public func send(
        _ request: OriginRequest, to endpoint: OriginEndpoint,
        completion: @escaping (Result<OriginResponse, OriginFailure>) -> Void
    ) {
        precondition(eventLoop.inLoop, "OriginClient.send off its loop")
        guard !closed else { return completion(.failure(.connectionLost)) }
        pool(for: endpoint).send(request, completion: completion)
    }

    /// Sends `request` from any thread; the exchange itself runs on the loop.
    public func send(_ request: OriginRequest, to endpoint: OriginEndpoint) async -> Result<OriginResponse, OriginFailure> {
        await withCheckedContinuation { continuation in
            eventLoop.execute {
                self.send(request, to: endpoint) { continuation.resume(returning: $0) }
            }
        }
    }

    /// Open connections to `endpoint` on this loop.
    func openConnections(to endpoint: OriginEndpoint) -> Int {
        pools[endpoint]?.openConnections ?? 0
    }

    /// Pools kept before idle ones are dropped. Image hosts get a pool per resolved address,
    /// so a host that rotates addresses would otherwise add pools for ever.
    static let poolLimit = 64

    private func pool(for endpoint: OriginEndpoint) -> OriginPool {
        if let pool = pools[endpoint] { return pool }
        if pools.count >= Self.poolLimit {
            for (key, pool) in pools where pool.isIdle {
                pool.close()
                pools[key] = nil
            }
        }
        let pool = OriginPool(endpoint: endpoint, loop: eventLoop, dns: dns, tls: tls, metrics: metrics, tracer: tracer, configuration: configuration)
        pools[endpoint] = pool
        return pool
    }

    /// Nothing to start: connections open on the first request.
    public func start() {}

    /// Closes every connection and the resolver. On the loop thread, with nothing in flight.
    /// Closes every connection; requests under way or waiting for a connection complete
    /// with `.connectionLost` (so whoever waits on them lets go), and later ones fail at once.
    public func close() {
        closed = true
        for pool in pools.values { pool.close() }
        pools = [:]
        if let dns { evdns_base_free(dns, 0) }
        dns = nil
    }
}
