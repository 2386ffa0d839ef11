import GatewayModels
import HTTPInterface
import ImageProcessing
import Logging
import Observability
import Routing

/// The gateway's routes, assembled from its configuration.
public enum GatewayApplication {
    /// The router the server dispatches to. `metrics` must be the instance the server
    /// records into, so `/metrics` shows what the server counted.
    /// - Parameters:
    ///   - reads: the product read routes, when the gateway has an origin.
    ///   - writes: the product write routes, when the gateway has an origin.
    ///   - images: the image route, when the gateway has an origin.
    ///   - readiness: `/readyz`, when the gateway has an origin.
    public static func router(
        metrics: GatewayMetrics, reads: ProductReads? = nil, writes: ProductWrites? = nil, images: ImageReads? = nil,
        readiness: Readiness? = nil, servesMetrics: Bool = true
    ) -> Router {
        var router = Router()
        readiness?.register(in: &router)
        reads?.register(in: &router)
        writes?.register(in: &router)
        images?.register(in: &router)
        router.add(.get, "/healthz", stored: { _, _, answer in
            answer.append(HealthHandler.storedHead)
            answer.body = HealthHandler.response.body
            return true
        }, .immediate { _, _ in HealthHandler.response })
        if servesMetrics { router.add(.get, "/metrics", metricsRoute(metrics)) }
        return router
    }

    /// `GET /metrics`: the Prometheus text exposition of `metrics`.
    static func metricsRoute(_ metrics: GatewayMetrics) -> RouteHandler {
        .immediate { _, _ in
            var response = GatewayResponse(status: 200, body: metrics.render())
            response.headers.set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            response.headers.set("Cache-Control", "no-store")
            return response
        }
    }

    /// The routes of a gateway in front of `configuration.origin.url`: product reads and writes
    /// with signed image URLs, the image route, liveness, readiness and metrics.
    public struct OriginRoutes: Sendable {
        public let router: Router
        public let reads: ProductReads
        public let writes: ProductWrites
        public let images: ImageReads
        /// Purges this process's caches (and with `--redis-url` the shared tier and every
        /// replica's); the admin listener's `POST /admin/purge`.
        public let purger: CachePurger
        /// What the server subscribes for other replicas' writes; nil without `--redis-url`.
        public let replicaListener: (any ReplicaListener)?
        /// Judges bearer tokens; nil without `--auth-issuer`. Its keys start loading with the
        /// server (`GatewayServer`).
        public let authenticator: BearerAuthenticator?
        /// The vendor credentials signed-in callers' writes are made with; nil without
        /// `--vendor-credentials-file` (or `--demo-auth`). Reloaded with the TLS files.
        public let vendorCredentials: VendorCredentialStore?
    }

    /// Everything a gateway in front of `configuration.origin.url` serves. The parts are returned
    /// besides the router (tests look into their caches).
    ///
    /// - Parameter vendorCredentials: the vendor credentials to write with for signed-in
    ///   callers when they are not read from `--vendor-credentials-file` (`--demo-auth`).
    /// - Throws: `OriginEndpointError` for an unusable origin URL, `ImageSigningKeyError`
    ///   when the signing key cannot be read or created, `VendorCredentialStore.Problem` when
    ///   the vendor credentials file cannot be used, or a file-system error when the image
    ///   cache directory cannot be created.
    public static func originRoutes(
        configuration: GatewayConfiguration, metrics: GatewayMetrics, logger: Logger = Logger(label: "open-market-gateway"),
        vendorCredentials: VendorCredentialStore? = nil
    ) throws -> OriginRoutes {
        let endpoint = try OriginEndpoint(url: configuration.origin.url ?? "")
        if configuration.redis != nil, configuration.images.signingKey == nil {
            throw ImageSigningKeyError(reason: "--redis-url needs --image-signing-key: every replica must sign image URLs with the same key")
        }
        // libvips, started and warmed up before any request: a gateway that cannot render
        // images must not start.
        try ImageProcessor.start()
        let signer = try ImageSigner.make(for: configuration.images)
        let client = configuration.origin.client
        let lane = PrefetchLane(originConnections: client.maxConnectionsPerLoop, metrics: metrics)
        let shared = configuration.redis.map { _ in
            SharedPages(
                prefix: ReplicaNamespace.pages(
                    origin: endpoint.description, generation: configuration.origin.generation,
                    signingKey: Array(signer.token(for: "open-market-gateway:shared-pages").utf8), publicURL: configuration.images.publicURL),
                staleIfError: configuration.readPath.cache.staleIfError, lockTime: client.connectTimeout + client.requestTimeout,
                waitBound: client.connectTimeout + client.requestTimeout, metrics: metrics)
        }
        let hostBreakers = configuration.origin.breaker.isOff ? nil : HostBreakers(settings: configuration.origin.breaker) { host, transition in
            switch transition {
            case .opened(let reason):
                metrics.imageHostBreakerTransition(to: "open")
                logger.warning("image host circuit breaker opened: nothing is sent to it for a while", metadata: [
                    "host": .string(host), "reason": .string(reason),
                ])
            case .reopened: metrics.imageHostBreakerTransition(to: "open")
            case .halfOpened: metrics.imageHostBreakerTransition(to: "half-open")
            case .closed:
                metrics.imageHostBreakerTransition(to: "closed")
                logger.info("image host circuit breaker closed: the host answered a probe", metadata: ["host": .string(host)])
            }
        }
        let images = try ImageReads(
            origin: endpoint, configuration: configuration.images, signer: signer, metrics: metrics, lane: lane, shared: shared,
            breakers: hostBreakers)
        var readPath = configuration.readPath
        readPath.privateAnswers = configuration.auth?.required == .all
        let breaker = CircuitBreaker(name: "origin", settings: configuration.origin.breaker) { transition in
            switch transition {
            case .opened(let reason):
                metrics.originBreakerTransition(to: "open")
                logger.warning("origin circuit breaker opened: nothing is sent to the origin for a while", metadata: [
                    "reason": .string(reason), "open_seconds": .stringConvertible(configuration.origin.breaker.openFor.components.seconds),
                ])
            case .reopened:
                metrics.originBreakerTransition(to: "open")
            case .halfOpened:
                metrics.originBreakerTransition(to: "half-open")
            case .closed:
                metrics.originBreakerTransition(to: "closed")
                logger.info("origin circuit breaker closed: the origin answered a probe")
            }
        }
        let reads = ProductReads(
            endpoint: endpoint, generation: configuration.origin.generation, configuration: readPath, compression: configuration.compression, metrics: metrics,
            imageURL: images.imageURL, shared: shared, images: images,
            backoff: FetchBackoff(first: configuration.origin.retryFirst, maximum: configuration.origin.retryMax),
            breaker: configuration.origin.breaker.isOff ? nil : breaker)
        // A retry waits for the running create with its key as long as that can take.
        let waitBound = configuration.origin.client.requestTimeout + .seconds(1)
        let idempotency: any IdempotencyLedger = configuration.redis == nil
            ? LocalIdempotency(waitBound: waitBound)
            : SharedIdempotency(
                namespace: ReplicaNamespace.writes(origin: endpoint.description, generation: configuration.origin.generation),
                waitBound: waitBound,
                lease: configuration.origin.client.connectTimeout + configuration.origin.client.requestTimeout + .seconds(30))
        var vendorStore = vendorCredentials
        if let path = configuration.auth?.vendorCredentialsFile {
            let (store, warning) = try VendorCredentialStore.load(path: path)
            if let warning { logger.warning("\(warning): the vendor secrets in it are readable by every user of this machine or volume") }
            vendorStore = store
        }
        let serverCredentials = configuration.auth.flatMap { auth in
            vendorStore.map { ServerVendorCredentials(store: $0, claim: auth.vendorClaim) }
        }
        let writes = ProductWrites(
            endpoint: endpoint, generation: configuration.origin.generation, vendorIdentifier: configuration.origin.vendorIdentifier,
            limits: DraftLimits(maxImageBytes: configuration.images.originImageMaxBytes), reads: reads, imageURL: images.imageURL,
            idempotency: idempotency,
            preparer: UploadFitter(
                maxBytes: configuration.images.originImageMaxBytes, maxSourceBytes: configuration.images.maxImageBytes,
                maxPixels: configuration.images.maxPixels, timeLimit: configuration.images.renderTimeout),
            workers: images.workers, serverCredentials: serverCredentials)
        let authenticator = configuration.auth.map { auth in
            let keys = AuthKeys(
                source: auth.keySource, refetchSpacing: auth.refetchSpacing, retryAfterFailure: auth.retryAfterFailure, metrics: metrics,
                logger: logger)
            return BearerAuthenticator(configuration: auth, keys: keys, metrics: metrics)
        }
        metrics.declareApplicationCounters(breakers: !configuration.origin.breaker.isOff, auth: authenticator != nil)
        if !configuration.origin.breaker.isOff { metrics.reportOriginBreaker(breaker) }
        if let hostBreakers { metrics.reportImageHostBreakers(hostBreakers) }
        if let keys = authenticator?.keys { metrics.reportAuthKeys(keys) }
        let readiness = Readiness(
            endpoint: endpoint, generation: configuration.origin.generation, authKeys: authenticator?.keys, breaker: reads.breaker)
        let purger = CachePurger(reads: reads, images: images)
        return OriginRoutes(
            router: router(
                metrics: metrics, reads: reads, writes: writes, images: images, readiness: readiness,
                servesMetrics: !configuration.admin.servesMetrics),
            reads: reads, writes: writes, images: images, purger: purger, replicaListener: shared == nil ? nil : purger,
            authenticator: authenticator, vendorCredentials: serverCredentials?.store)
    }
}

/// The admin listener's settings cannot work.
public struct AdminConfigurationError: Error, CustomStringConvertible {
    public let reason: String
    public var description: String { reason }

    public init(reason: String) {
        self.reason = reason
    }
}
