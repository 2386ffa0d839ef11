import HTTPCodec
import Logging
import Observability
import Synchronization

/// What every loop of one server shares: settings, routes, the logger and the count of
/// requests that have not been answered yet. Immutable but for the atomics; any thread.
final class ServerCore: Sendable {
    let configuration: GatewayConfiguration
    let router: Router
    let logger: Logger
    let metrics: GatewayMetrics
    /// Requests read but not answered yet, across all loops.
    let inFlight = Atomic<Int>(0)
    /// Begun when shutdown begins: replies then carry `Connection: close`.
    let drain = DrainState()
    /// Open client connections, across all loops (bounded by `maxConnections`).
    let connections = Atomic<Int>(0)
    /// The state of the shared Redis, for every loop's connection (unused without one).
    let redisHealth = RedisHealth()
    /// The request limits every loop's decoders enforce.
    let requestLimits: RequestLimits

    /// The per-client budgets; nil when no limit is set.
    let rateLimiter: RateLimiter?

    /// Told about other replicas' writes, through the first loop's subscription.
    let replicaListener: (any ReplicaListener)?

    init(configuration: GatewayConfiguration, router: Router, logger: Logger, metrics: GatewayMetrics, replicaListener: (any ReplicaListener)?) {
        self.configuration = configuration
        self.replicaListener = replicaListener
        self.router = router
        self.logger = logger
        self.metrics = metrics
        rateLimiter = configuration.rateLimits.isOn
            ? RateLimiter(configuration: configuration.rateLimits, shared: configuration.redis != nil && replicaListener != nil) : nil
        requestLimits = RequestLimits(
            maxHeadBytes: configuration.maxHeaderBytes, maxTargetBytes: configuration.maxTargetBytes,
            maxBodyBytes: configuration.maxBodyBytes, maxUploadBytes: configuration.maxUploadBytes,
            uploadRoutes: configuration.uploadRoutes)
    }
}
