import Foundation
import Gateway
import GatewayModels
import HTTPCodec
import HTTPInterface
import Logging
import Observability
import RedisClient
import Routing
import Tracing
import Transport
import GatewaySupport
#if canImport(Glibc)
import Glibc
#endif

/// The gateway as one process runs it: the application (`router`, with the rate limiter
/// when limits are set) on the HTTP/1.1 transport, with each loop's Redis connection, the
/// replicas' subscription and the shared rate-limit sync when `--redis-url` is set.
///
/// `start`, `port` and `shutdown` may be called from any thread except a loop's own.
public final class GatewayServer: Sendable {
    public let configuration: GatewayConfiguration
    private let application: RouterApplication
    /// The routes that declare the upload body limit, from the route table.
    private let uploadRoutes: [UploadRoute]
    private let logger: Logger
    private let metrics: GatewayMetrics
    /// Told about other replicas' writes, through the first loop's subscription.
    private let replicaListener: (any ReplicaListener)?
    /// The state of the shared Redis, for every loop's connection (unused without one).
    private let redisHealth = RedisHealth()
    /// The per-client budgets; nil when no limit is set.
    package let rateLimiter: RateLimiter?
    private let running = Locked<HTTPServer?>(nil)
    /// Judges bearer tokens; nil without `--auth-issuer`.
    private let authenticator: BearerAuthenticator?
    /// The identity provider's TLS context (`--auth-ca-file`), made at `start`.
    private let identityProviderTLS = Locked<TLSContext?>(nil)
    /// The client TLS context of every Redis connection with `rediss://`, made at `start`.
    private let redisTLS = Locked<TLSContext?>(nil)
    /// With `redis-sentinel://`: what names the primary; made with the first loop.
    private let sentinelDirectory = Locked<SentinelDirectory?>(nil)
    /// The client TLS context each loop's origin client uses for an https origin and for
    /// image hosts (nil when neither needs one), made at `start`.
    private let originTLS = Locked<TLSContext?>(nil)
    /// `--vendor-credentials-file`, reloaded with the TLS files; nil without it.
    private let vendorCredentials: VendorCredentialStore?
    /// Sends spans to the collector, with tracing on; made at `start`.
    private let traceExporter = Locked<TraceExporter?>(nil)
    /// The exporter's tracer, for each loop's origin client; made at `start`.
    private let tracer = Locked<Tracer?>(nil)
    /// Whether this is the public listener, whose connections and Redis the metrics report
    /// (the admin listener shares the registry and reports neither).
    private let reportsMetrics: Bool

    /// - Parameter metrics: where request metrics go; the router's `/metrics` route should
    ///   render the same instance.
    /// - Parameter replicaListener: with `--redis-url`, what hears other replicas' writes
    ///   (`GatewayApplication.OriginRoutes.replicaListener`); the first loop subscribes for it.
    /// - Parameter authenticator: with `--auth-issuer`, what judges bearer tokens
    ///   (`GatewayApplication.OriginRoutes.authenticator`); its keys load from the first loop.
    /// - Parameter vendorCredentials: `GatewayApplication.OriginRoutes.vendorCredentials`,
    ///   which ``reloadFiles(_:)`` reads again.
    /// - Parameter reportsMetrics: whether `gateway_connections` and `gateway_redis_up` report
    ///   this server's (false for the admin listener, which shares the registry).
    public init(
        configuration: GatewayConfiguration, router: Router, logger: Logger, metrics: GatewayMetrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets),
        replicaListener: (any ReplicaListener)? = nil, authenticator: BearerAuthenticator? = nil, vendorCredentials: VendorCredentialStore? = nil,
        reportsMetrics: Bool = true
    ) {
        self.reportsMetrics = reportsMetrics
        self.vendorCredentials = vendorCredentials
        self.authenticator = authenticator
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
        self.replicaListener = replicaListener
        let limiter = configuration.rateLimits.isOn
            ? RateLimiter(configuration: configuration.rateLimits, shared: configuration.redis != nil && replicaListener != nil) : nil
        rateLimiter = limiter
        uploadRoutes = router.uploadRoutes
        application = RouterApplication(
            router: router, admission: limiter, authenticator: authenticator, logger: logger, metrics: metrics)
    }

    private var server: HTTPServer? { running.withLock { $0 } }

    /// The port the server listens on; meaningful after `start`.
    public var port: Int { server?.port ?? 0 }

    /// Requests read but not answered yet.
    public var inFlight: Int { server?.inFlight ?? 0 }

    /// The kernel thread ids of the running loops (tests read their CPU time).
    package var loopKernelThreadIDs: [Int32] { server?.loopKernelThreadIDs ?? [] }

    /// Connections holding a read buffer now, and the loops' spare buffers (tests).
    package func readStorage() async -> (holding: Int, spare: Int) {
        await server?.readStorage() ?? (0, 0)
    }

    /// With `--redis-url`: whether every connection to Redis is up (each loop's two, and the
    /// subscription's when the server has one).
    package var redisReady: Bool {
        let expected = 2 * max(1, configuration.threads) + (replicaListener == nil ? 0 : 1)
        return configuration.redis != nil && redisHealth.connectedCount == expected
    }

    /// Whether the subscription to other replicas' writes works now.
    package var replicaLinked: Bool { redisHealth.isSubscribed }

    /// The replicas the Redis primary last said it has (`ROLE`).
    package var redisReplicasConnected: Int { redisHealth.replicasConnected }

    /// With Redis Sentinel: the primary in use and the last failover followed.
    package var redisPrimaryStatus: RedisPrimaryStatus? { sentinelDirectory.withLock { $0 }?.status }

    /// Names this server's connections in Redis (`omg-commands-<instance>`).
    package var redisInstance: String { redisHealth.instance }

    /// Binds the port and starts every loop. Returns once the server accepts connections.
    ///
    /// - Throws: `TransportError` when the TLS files or the origin's URL cannot be used, the
    ///   address does not resolve, the port is taken, or libevent cannot be set up; nothing
    ///   is left running then.
    public func start() throws(TransportError) {
        if authenticator != nil {
            let tls = try TLSContext.client(caFile: configuration.auth?.caFile)
            identityProviderTLS.withLock { $0 = tls }
        }
        if let origin = configuration.origin.url {
            let endpoint: OriginEndpoint
            do {
                endpoint = try OriginEndpoint(url: origin)
            } catch {
                throw TransportError(error.description)
            }
            // Image hosts may be https even when the origin is not.
            let needsTLS = endpoint.scheme == .https || !configuration.images.allowedHosts.isEmpty
            let context = needsTLS ? try TLSContext.client(caFile: configuration.origin.caFile) : nil
            originTLS.withLock { $0 = context }
        }
        if let tls = configuration.redis?.tls {
            let context = try TLSContext.client(caFile: tls.caFile, certificateFile: tls.certificateFile, keyFile: tls.keyFile)
            redisTLS.withLock { $0 = context }
        }
        var transport = try transportConfiguration()
        var exporter: TraceExporter?
        if let tracing = configuration.tracing {
            let resource = TraceResource.gateway(
                serviceName: tracing.serviceName, version: GatewayServer.version, instanceID: redisHealth.instance, hostName: Self.hostName(),
                extra: tracing.resourceAttributes.map { ($0.name, $0.value) })
            let made = try TraceExporter(configuration: tracing, resource: resource, metrics: metrics, logger: logger)
            transport.tracer = made.tracer
            tracer.withLock { $0 = made.tracer }
            exporter = made
        }
        let server = HTTPServer(configuration: transport, application: application, logger: logger, metrics: metrics)
        try server.start { index, loop in attachments(index: index, loop: loop) }
        running.withLock { $0 = server }
        if reportsMetrics { reportState(of: server) }
        if let exporter {
            exporter.start()
            traceExporter.withLock { $0 = exporter }
        }
        if let redis = configuration.redis {
            // The URL without its password.
            logger.info("sharing state through redis", metadata: ["redis": .string(redis.description)], source: "Gateway")
        }
    }

    /// Registers the gauges read at each scrape: `gateway_connections{protocol}` (open client
    /// connections by the protocol they speak: `HTTP/1.1` until a connection turns to
    /// `HTTP/2`) and, with `--redis-url`, `gateway_redis_up` (1 while a connection to Redis
    /// is up and its breaker closed) beside `gateway_redis_failures_total` at 0.
    private func reportState(of server: HTTPServer) {
        // At 0 from the start with TLS: plain HTTP refused on the TLS port.
        if configuration.tls != nil { _ = metrics.counter("gateway_plain_http_on_tls_total") }
        let http1 = metrics.gauge("gateway_connections", [("protocol", WireProtocol.http11.rawValue)])
        let http2 = metrics.gauge("gateway_connections", [("protocol", WireProtocol.http2.rawValue)])
        // Weak: the registry outlives nothing it reports on (the server holds the registry).
        metrics.onScrape { [weak server] in
            guard let server else { return }
            let open = server.openConnections
            http1.record(open.http1)
            http2.record(open.http2)
        }
        guard configuration.redis != nil else { return }
        metrics.declareCounters("gateway_redis_failures_total", "reason", ["timeout", "connection_lost"])
        let up = metrics.gauge("gateway_redis_up")
        let health = redisHealth
        metrics.onScrape { up.record(health.isReachable ? 1 : 0) }
    }

    /// Loads the TLS certificate, key and ticket keys, and the vendor credentials file, again
    /// (on SIGHUP, or with `.interval` only when a file changed since the last attempt), logs
    /// each outcome once and counts it in `gateway_reloads_total` (`files="tls"` or
    /// `"vendor-credentials"`). A file that fails to load keeps the ones in use; connections
    /// open across a reload keep working. Reads files: call it off the loops (the signal
    /// thread does).
    public func reloadFiles(_ trigger: ProcessSignals.ReloadTrigger) {
        if let vendorCredentials { reloadVendorCredentials(vendorCredentials, trigger: trigger) }
        guard let tls = server?.tls else {
            if trigger == .signal, vendorCredentials == nil { logger.info("SIGHUP: no files to reload (no --tls-cert)") }
            return
        }
        guard trigger == .signal || (configuration.tls?.reloadInterval != nil && tls.filesChanged) else { return }
        let metadata: Logger.Metadata = ["trigger": .string(trigger.rawValue), "files": .string(tls.files.all.joined(separator: ","))]
        do {
            try tls.reload()
            metrics.fileReload(files: "tls", outcome: "ok")
            logger.info("reloaded the TLS certificate, key and ticket keys", metadata: metadata)
        } catch {
            metrics.fileReload(files: "tls", outcome: "failed")
            logger.error(
                "cannot reload the TLS files; keeping the ones in use",
                metadata: metadata.merging(["error": .string(error.description)]) { $1 })
        }
    }

    private func reloadVendorCredentials(_ store: VendorCredentialStore, trigger: ProcessSignals.ReloadTrigger) {
        let metadata: Logger.Metadata = ["trigger": .string(trigger.rawValue), "files": .string(store.path)]
        do {
            guard case .loaded(let vendors, let warning) = try store.reload(force: trigger == .signal) else { return }
            metrics.fileReload(files: "vendor-credentials", outcome: "ok")
            if let warning { logger.warning("\(warning)", metadata: metadata) }
            logger.info("reloaded the vendor credentials", metadata: metadata.merging(["vendors": .stringConvertible(vendors)]) { $1 })
        } catch {
            metrics.fileReload(files: "vendor-credentials", outcome: "failed")
            logger.error(
                "cannot reload the vendor credentials; keeping the ones in use",
                metadata: metadata.merging(["error": .string(error.description)]) { $1 })
        }
    }

    /// Stops gracefully (see `HTTPServer.shutdown`), then sends the spans still queued.
    /// Calling it again does nothing.
    public func shutdown() {
        server?.shutdown()
        let exporter = traceExporter.withLock { exporter in
            defer { exporter = nil }
            return exporter
        }
        exporter?.shutdown()
    }

    /// The gateway's version: `service.version` on its spans (the contract's version).
    public static let version = "1.0.0"

    /// This machine's name (`gethostname`; no lookup): `host.name` on spans.
    private static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The transport's settings from the gateway's.
    private func transportConfiguration() throws(TransportError) -> HTTPServerConfiguration {
        var transport = HTTPServerConfiguration()
        transport.host = configuration.host
        transport.port = configuration.port
        transport.threads = configuration.threads
        transport.requestLimits = RequestLimits(
            maxHeadBytes: configuration.maxHeaderBytes, maxTargetBytes: configuration.maxTargetBytes,
            maxBodyBytes: configuration.maxBodyBytes, maxUploadBytes: configuration.maxUploadBytes,
            uploadRoutes: uploadRoutes)
        transport.idleTimeout = configuration.idleTimeout
        transport.headerTimeout = configuration.headerTimeout
        transport.bodyTimeout = configuration.bodyTimeout
        transport.writeTimeout = configuration.writeTimeout
        transport.maxOutputBytes = configuration.maxOutputBytes
        transport.maxConnections = configuration.maxConnections
        transport.shutdownGrace = configuration.shutdownGrace
        transport.listenBacklog = configuration.listenBacklog
        transport.sharesPort = configuration.listenShared
        transport.compression = configuration.compression
        transport.offloadCompressionBytes = configuration.offloadCompressionBytes
        transport.http2 = HTTP2Configuration(enabled: configuration.http2, maxConcurrentStreams: configuration.http2MaxConcurrentStreams)
        if let tls = configuration.tls {
            transport.tls = try TLSServerContext(
                files: TLSServerFiles(certificateFile: tls.certificateFile, privateKeyFile: tls.privateKeyFile, ticketKeyFiles: tls.ticketKeyFiles),
                offersHTTP2: configuration.http2)
        }
        return transport
    }

    /// What loop `index` starts and closes with: its origin client (with `--origin`) and its
    /// Redis attachments; on the first loop also the identity provider's client, which loads
    /// the keys.
    private func attachments(index: Int, loop: EventLoop) -> LoopAttachments {
        var attached = redisAttachments(index: index, loop: loop)
        if configuration.origin.url != nil {
            let origin = OriginClient(
                loop: loop, configuration: configuration.origin.client, tls: originTLS.withLock { $0 }, metrics: metrics,
                tracer: tracer.withLock { $0 })
            attached.origin = origin
            // First, so it closes before the Redis connections, as before.
            attached.attachments.insert(origin, at: 0)
        }
        if index == 0, let authenticator, let tls = identityProviderTLS.withLock({ $0 }) {
            attached.attachments.append(
                IdentityProviderClient(
                    loop: loop, configuration: configuration.origin.client, tls: tls, keys: authenticator.keys, tracer: tracer.withLock { $0 }))
        }
        return attached
    }

    /// Loop `index`'s Redis connections (one for reads and the rest, one for the
    /// `Idempotency-Key` records that wait for replicas); on the first loop also the
    /// subscription to other replicas' writes and the shared rate-limit sync.
    private func redisAttachments(index: Int, loop: EventLoop) -> LoopAttachments {
        guard let redisConfiguration = configuration.redis else { return LoopAttachments() }
        let tls = redisTLS.withLock { $0 }
        var attached = LoopAttachments()
        // With Sentinel, one directory (on the first loop) names the primary to every loop's
        // connections.
        if index == 0, redisConfiguration.sentinel != nil {
            let directory = SentinelDirectory(
                loop: loop, configuration: redisConfiguration, tls: tls, logger: logger, metrics: metrics, instance: redisHealth.instance)
            sentinelDirectory.withLock { $0 = directory }
            attached.attachments.append(directory)
        }
        let directory = sentinelDirectory.withLock { $0 }
        let durable = RedisConnection(
            loop: loop, configuration: redisConfiguration, tls: tls, health: redisHealth, logger: logger, metrics: metrics, nodes: directory,
            name: "durable")
        let redis = RedisConnection(
            loop: loop, configuration: redisConfiguration, tls: tls, health: redisHealth, logger: logger, metrics: metrics, nodes: directory,
            durable: durable)
        attached.redis = redis
        attached.attachments += [redis, durable]
        directory?.register(redis)
        directory?.register(durable)
        guard index == 0, let listener = replicaListener else { return attached }
        let limiter = rateLimiter
        let subscriber = RedisConnection(
            loop: loop, configuration: redisConfiguration, tls: tls, health: redisHealth, logger: logger, metrics: metrics, nodes: directory,
            role: .subscriber(channel: listener.channel, heartbeat: .publish(via: redis)) { event in
                switch event {
                case .linked: listener.replicaLink(up: true)
                case .unlinked: listener.replicaLink(up: false)
                case .message(let payload):
                    if let limiter, RateLimitSync.apply(payload, to: limiter) { return }
                    listener.replicaMessage(payload)
                }
            })
        attached.attachments.append(subscriber)
        directory?.register(subscriber)
        if let limiter, limiter.shared, let origin = configuration.origin.url {
            let namespace = ReplicaNamespace.rateLimits(origin: origin, generation: configuration.origin.generation)
            let sync = RateLimitSync(limiter: limiter, redis: redis, prefix: namespace, channel: listener.channel, metrics: metrics)
            attached.attachments.append(StartOnly { sync.start() })
        }
        return attached
    }
}

/// An attachment with nothing to close (its work ends with the loop).
private final class StartOnly: LoopAttachment {
    private let begin: @Sendable () -> Void
    init(_ begin: @escaping @Sendable () -> Void) { self.begin = begin }
    func start() { begin() }
    func close() {}
}
