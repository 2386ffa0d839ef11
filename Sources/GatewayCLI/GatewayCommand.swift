import ArgumentParser
import DemoOrigin
import Foundation
import Gateway
import GatewayModels
import Logging

/// `gateway`: flags (or their `GATEWAY_*` environment variables) into a configuration,
/// then serve until SIGTERM or SIGINT.
struct GatewayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Open Market Gateway: a REST gateway and backend-for-frontend for mobile shopping apps.",
        discussion: """
            Every option can also be set with the environment variable named beside it; a \
            flag on the command line wins over the environment.
            """)

    @Option(help: "Address to listen on. (env: GATEWAY_HOST)")
    var host: String = "0.0.0.0"

    @Option(help: "Port to listen on; 0 picks a free port. (env: GATEWAY_PORT)")
    var port: Int = 8080

    @Option(help: "Event loops, each with its own thread, all on one port. Default: the number of cores. (env: GATEWAY_THREADS)")
    var threads: Int = GatewayConfiguration.defaultThreads

    @Option(help: "Origin base URL (http or https). Without it the gateway runs on its embedded demo origin. (env: GATEWAY_ORIGIN)")
    var origin: String?

    @Option(help: "The origin's API generation: v1, v2 or v2b; the embedded demo origin runs in it too. (env: GATEWAY_ORIGIN_GENERATION)")
    var originGeneration: String = "v1"

    @Option(help: "The v2/v2b vendor identifier sent with writes; a request's Vendor-Identifier header overrides it. Never logged. (env: GATEWAY_ORIGIN_VENDOR_IDENTIFIER)")
    var originVendorIdentifier: String?

    @Option(help: "Largest request body accepted, in bytes; larger ones get 413. (env: GATEWAY_MAX_BODY_BYTES)")
    var maxBodyBytes: Int = 4 * 1024 * 1024

    @Option(help: "Largest body of a product create or update (writes that carry images), in bytes; larger ones get 413. (env: GATEWAY_MAX_UPLOAD_BYTES)")
    var maxUploadBytes: Int = 32 * 1024 * 1024

    @Option(help: "Largest request line plus headers accepted, in bytes; larger heads get 431. (env: GATEWAY_MAX_HEADER_BYTES)")
    var maxHeaderBytes: Int = 16 * 1024

    @Option(help: "Longest request target accepted, in bytes; longer ones get 414. (env: GATEWAY_MAX_TARGET_BYTES)")
    var maxTargetBytes: Int = 8192

    @Option(help: "Seconds a keep-alive connection may wait for its next request before it is closed. (env: GATEWAY_IDLE_TIMEOUT)")
    var idleTimeout: Double = 30

    @Option(help: "Seconds a client has to send a whole request head, from its first byte; then 408. (env: GATEWAY_HEADER_TIMEOUT)")
    var headerTimeout: Double = 10

    @Option(help: "Seconds a request body may make no progress; then 408. (env: GATEWAY_BODY_TIMEOUT)")
    var bodyTimeout: Double = 30

    @Option(help: "Seconds a client may leave answers unread before it is disconnected. (env: GATEWAY_WRITE_TIMEOUT)")
    var writeTimeout: Double = 30

    @Option(help: "Answer bytes queued per connection past which no more requests are read from it until it reads them. (env: GATEWAY_MAX_OUTPUT_BYTES)")
    var maxOutputBytes: Int = 4 * 1024 * 1024

    @Option(help: "Open client connections per process; past it new ones get 503 after idle ones are closed. Default: the descriptor limit less 256. (env: GATEWAY_MAX_CONNECTIONS)")
    var maxConnections: Int = GatewayConfiguration.defaultMaxConnections

    @Option(help: "Seconds in-flight requests may take to finish after SIGTERM or SIGINT. (env: GATEWAY_SHUTDOWN_GRACE)")
    var shutdownGrace: Double = 10

    @Option(help: "Smallest response body that is gzipped, in bytes. (env: GATEWAY_GZIP_MIN_BYTES)")
    var gzipMinBytes: Int = 1024

    @Option(help: "Seconds to resolve and connect to the origin. (env: GATEWAY_ORIGIN_CONNECT_TIMEOUT)")
    var originConnectTimeout: Double = 2

    @Option(help: "Seconds for a whole origin exchange; reads then answer 504 (or a stale page). (env: GATEWAY_ORIGIN_TIMEOUT)")
    var originTimeout: Double = 5

    @Option(help: "Keep-alive connections to the origin per event loop. (env: GATEWAY_ORIGIN_MAX_CONNECTIONS)")
    var originMaxConnections: Int = 32

    @Option(help: "PEM file of CAs trusted for an https origin instead of the system's. (env: GATEWAY_ORIGIN_CA_FILE)")
    var originCaFile: String?

    @Option(help: "Bytes the page cache may hold (identity and gzip bodies). (env: GATEWAY_PAGE_CACHE_BYTES)")
    var pageCacheBytes: Int = 64 << 20

    @Option(help: "Seconds a cached list page is fresh. (env: GATEWAY_LIST_TTL)")
    var listTtl: Double = 30

    @Option(help: "Seconds a cached product detail is fresh. (env: GATEWAY_DETAIL_TTL)")
    var detailTtl: Double = 60

    @Option(help: "Seconds a page past its TTL is still served while one refresh runs. (env: GATEWAY_STALE_WHILE_REVALIDATE)")
    var staleWhileRevalidate: Double = 30

    @Option(help: "Seconds past its TTL a page is served when the origin fails. (env: GATEWAY_STALE_IF_ERROR)")
    var staleIfError: Double = 3600

    @Option(help: "Public base URL of the gateway (https://api.example.com): image URLs in responses are absolute under it; without it they are root-relative. (env: GATEWAY_PUBLIC_URL)")
    var publicUrl: String?

    @Option(help: "Directory for the generated image signing key and cached images. (env: GATEWAY_CACHE_DIR)")
    var cacheDir: String = ".gateway-cache"

    @Option(help: "Key (at least 16 characters) signing image URLs; without it a key is generated once and kept in --cache-dir. (env: GATEWAY_IMAGE_SIGNING_KEY)")
    var imageSigningKey: String?

    @Option(help: ArgumentHelp("Host (host or host:port) images may come from besides the origin's; repeatable, or comma-separated. A literal IP address listed here may be internal. (env: GATEWAY_IMAGE_HOST)", valueName: "host"))
    var imageHost: [String] = []

    @Option(help: "Largest image fetched, in bytes. (env: GATEWAY_MAX_IMAGE_BYTES)")
    var maxImageBytes: Int = 10 << 20

    @Option(help: "Bytes of images the memory tier may hold. (env: GATEWAY_IMAGE_MEMORY_BYTES)")
    var imageMemoryBytes: Int = 64 << 20

    @Option(help: "Bytes of images the disk tier under --cache-dir may hold; 0 turns it off. (env: GATEWAY_IMAGE_DISK_BYTES)")
    var imageDiskBytes: Int = 1 << 30

    @Option(help: "Whether image tokens of the earlier layout, which show the origin's URL, are still accepted (true or false); tokens made now are always sealed. Off by default: turn it on only while such tokens are still in the wild. (env: GATEWAY_LEGACY_IMAGE_TOKENS)")
    var legacyImageTokens: Bool = false

    @Option(help: "The origin's limit per uploaded image, in bytes: larger uploads are made smaller (quality, then size) until they fit. (env: GATEWAY_ORIGIN_IMAGE_MAX_BYTES)")
    var originImageMaxBytes: Int = 307_200

    @Option(help: "Widths images may be asked at (?w=), comma-separated; any other width is refused with 400. (env: GATEWAY_IMAGE_WIDTHS)")
    var imageWidths: String = "160,320,480,640,960,1280"

    @Option(help: "Newer formats sent to clients whose Accept names them: avif,webp, webp, avif, or none (only the sources' own formats). (env: GATEWAY_IMAGE_FORMATS)")
    var imageFormats: String = "avif,webp"

    @Option(help: "AVIF encoder speed, 0 (slowest, smallest files) to 9 (fastest). (env: GATEWAY_AVIF_SPEED)")
    var avifSpeed: Int = 8

    @Option(help: "Images with more pixels than this are refused from their header, undecoded. (env: GATEWAY_MAX_IMAGE_PIXELS)")
    var maxImagePixels: Int = 40_000_000

    @Option(help: "Seconds one image render may take before it is stopped (502). (env: GATEWAY_IMAGE_RENDER_TIMEOUT)")
    var imageRenderTimeout: Double = 10

    @Option(help: "PEM certificate chain: serve HTTPS instead of HTTP (with --tls-key). (env: GATEWAY_TLS_CERT)")
    var tlsCert: String?

    @Option(help: "PEM private key for --tls-cert. (env: GATEWAY_TLS_KEY)")
    var tlsKey: String?

    @Option(help: "Redis shared by the replicas, redis://[user:password@]host:port[/db]: Idempotency-Key records survive restarts and are seen by every replica. Off by default (one process, everything in memory). Needs --image-signing-key. The password is never logged; rediss:// (TLS) is not supported. (env: GATEWAY_REDIS_URL)")
    var redisUrl: String?

    @Option(help: "Seconds a Redis command may take before the gateway gives up on it. (env: GATEWAY_REDIS_TIMEOUT)")
    var redisTimeout: Double = 0.25

    @Option(help: "Per-client budget of product reads (GET and HEAD on /v1/products…), N/s, N/m or N/h, e.g. 600/m. Off by default. (env: GATEWAY_RATE_LIMIT_READS)")
    var rateLimitReads: String?

    @Option(help: "Per-client budget of product writes (POST, PATCH, DELETE on /v1/products…), N/s, N/m or N/h, e.g. 30/m. Off by default. (env: GATEWAY_RATE_LIMIT_WRITES)")
    var rateLimitWrites: String?

    @Option(help: "Per-client budget of images (/v1/images/…), N/s, N/m or N/h; a scrolled list page brings 20 thumbnails. Off by default. (env: GATEWAY_RATE_LIMIT_IMAGES)")
    var rateLimitImages: String?

    @Option(help: "Requests a rested client may send at once beyond each budget's quota. (env: GATEWAY_RATE_LIMIT_BURST)")
    var rateLimitBurst: Int = 0

    @Option(help: "Comma-separated addresses and CIDR ranges of proxies whose X-Forwarded-For (and --rate-limit-key-header) is believed. (env: GATEWAY_TRUSTED_PROXIES)")
    var trustedProxies: String?

    @Option(help: "A header a trusted proxy sets to name the client, for rate limits (many phones share one carrier address). (env: GATEWAY_RATE_LIMIT_KEY_HEADER)")
    var rateLimitKeyHeader: String?

    @Option(help: "Port of the admin listener (POST /admin/purge, GET /admin/cache); needs an admin token. Off by default. (env: GATEWAY_ADMIN_PORT)")
    var adminPort: Int?

    @Option(help: "Address of the admin listener. (env: GATEWAY_ADMIN_HOST)")
    var adminHost: String = "127.0.0.1"

    @Option(help: "Bearer token of the admin listener; never logged. Prefer GATEWAY_ADMIN_TOKEN_FILE, which shows in no process list. (env: GATEWAY_ADMIN_TOKEN)")
    var adminToken: String?

    @Flag(help: "Serve /metrics on the admin listener instead of the public port. (env: GATEWAY_METRICS_ON_ADMIN=true)")
    var metricsOnAdmin = false

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical. (env: GATEWAY_LOG_LEVEL)")
    var logLevel: String = "info"

    @Option(help: "Log format: text (key=value lines) or json (one object per line). (env: GATEWAY_LOG_FORMAT)")
    var logFormat: String = "text"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535.") }
        guard OriginGeneration(rawValue: originGeneration) != nil else {
            throw ValidationError("--origin-generation must be v1, v2 or v2b.")
        }
        if let originVendorIdentifier {
            guard !originVendorIdentifier.isEmpty, originVendorIdentifier.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw ValidationError("--origin-vendor-identifier must be visible ASCII characters.")
            }
        }
        guard (1...256).contains(threads) else { throw ValidationError("--threads must be 1 to 256.") }
        guard maxBodyBytes > 0 else { throw ValidationError("--max-body-bytes must be positive.") }
        guard maxUploadBytes > 0, maxUploadBytes <= 1 << 30 else { throw ValidationError("--max-upload-bytes must be positive and at most 1 GiB.") }
        guard originImageMaxBytes >= 1024 else { throw ValidationError("--origin-image-max-bytes must be at least 1024.") }
        guard maxHeaderBytes >= 1024 else { throw ValidationError("--max-header-bytes must be at least 1024.") }
        guard maxTargetBytes >= 256 else { throw ValidationError("--max-target-bytes must be at least 256.") }
        guard idleTimeout > 0, headerTimeout > 0, bodyTimeout > 0, writeTimeout > 0 else {
            throw ValidationError("--idle-timeout, --header-timeout, --body-timeout and --write-timeout must be positive.")
        }
        guard maxOutputBytes >= 64 * 1024 else { throw ValidationError("--max-output-bytes must be at least 65536.") }
        guard maxConnections > 0 else { throw ValidationError("--max-connections must be positive.") }
        guard shutdownGrace >= 0 else { throw ValidationError("--shutdown-grace must not be negative.") }
        guard gzipMinBytes >= 0 else { throw ValidationError("--gzip-min-bytes must not be negative.") }
        guard Logger.Level(rawValue: logLevel.lowercased()) != nil else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        guard BatchedLogHandler.Format(rawValue: logFormat) != nil else { throw ValidationError("--log-format must be text or json.") }
        guard originConnectTimeout > 0, originTimeout > 0 else { throw ValidationError("Origin timeouts must be positive.") }
        guard (1...1024).contains(originMaxConnections) else { throw ValidationError("--origin-max-connections must be 1 to 1024.") }
        guard pageCacheBytes >= 0 else { throw ValidationError("--page-cache-bytes must not be negative.") }
        guard listTtl >= 0, detailTtl >= 0, staleWhileRevalidate >= 0, staleIfError >= 0 else {
            throw ValidationError("Cache times must not be negative.")
        }
        guard maxImageBytes > 0, imageMemoryBytes >= 0, imageDiskBytes >= 0 else {
            throw ValidationError("--max-image-bytes must be positive, --image-memory-bytes and --image-disk-bytes not negative.")
        }
        guard ImageConfiguration.widths(imageWidths) != nil else {
            throw ValidationError("--image-widths must be 1 to 16 comma-separated widths, each 16 to 4096.")
        }
        guard ImageConfiguration.formats(imageFormats) != nil else {
            throw ValidationError("--image-formats must be avif, webp, both comma-separated, or none.")
        }
        guard (0...9).contains(avifSpeed) else { throw ValidationError("--avif-speed must be 0 to 9.") }
        guard maxImagePixels >= 1 else { throw ValidationError("--max-image-pixels must be positive.") }
        guard imageRenderTimeout > 0, imageRenderTimeout <= 300 else {
            throw ValidationError("--image-render-timeout must be more than 0 and at most 300 seconds.")
        }
        guard imageSigningKey.map({ $0.utf8.count >= 16 }) ?? true else {
            throw ValidationError("--image-signing-key must be at least 16 characters.")
        }
        guard !cacheDir.isEmpty else { throw ValidationError("--cache-dir must not be empty.") }
        for host in imageHosts where !ImageConfiguration.isValidHost(host) {
            throw ValidationError("--image-host \(host) must be a host name or IP address, with an optional :port.")
        }
        if let publicUrl {
            guard let url = URL(string: publicUrl), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                url.host != nil, url.query == nil
            else { throw ValidationError("--public-url must be an http or https URL with a host, like https://api.example.com.") }
        }
        if let redisUrl {
            do {
                _ = try RedisConfiguration(url: redisUrl)
            } catch {
                throw ValidationError(error.description)
            }
            guard imageSigningKey != nil else {
                throw ValidationError("--redis-url needs --image-signing-key: every replica must sign image URLs with the same key, and a generated key is each replica's own.")
            }
        }
        for (flag, value) in [("--rate-limit-reads", rateLimitReads), ("--rate-limit-writes", rateLimitWrites), ("--rate-limit-images", rateLimitImages)] {
            guard let value else { continue }
            guard RateRule(parsing: value) != nil else {
                throw ValidationError("\(flag) must be N/s, N/m or N/h with N from 1 to 1000000, like 600/m.")
            }
        }
        guard (0...1_000_000).contains(rateLimitBurst) else { throw ValidationError("--rate-limit-burst must be 0 to 1000000.") }
        if let trustedProxies, AddressRanges(parsing: trustedProxies) == nil {
            throw ValidationError("--trusted-proxies must be comma-separated IP addresses or CIDR ranges, like 10.0.0.0/8,2001:db8::/32.")
        }
        if let rateLimitKeyHeader {
            guard !rateLimitKeyHeader.isEmpty, rateLimitKeyHeader.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw ValidationError("--rate-limit-key-header must be a header name.")
            }
            guard trustedProxies != nil else {
                throw ValidationError("--rate-limit-key-header needs --trusted-proxies: only a trusted proxy's header is believed.")
            }
        }
        if let adminPort {
            guard (0...65535).contains(adminPort) else { throw ValidationError("--admin-port must be 0 to 65535.") }
            guard let adminToken, !adminToken.isEmpty else {
                throw ValidationError("--admin-port needs an admin token: --admin-token, GATEWAY_ADMIN_TOKEN or GATEWAY_ADMIN_TOKEN_FILE.")
            }
            guard adminToken.utf8.count >= 16 else { throw ValidationError("The admin token must be at least 16 characters.") }
            guard adminPort == 0 || adminPort != port else { throw ValidationError("--admin-port must differ from --port.") }
        }
        guard !metricsOnAdmin || adminPort != nil else { throw ValidationError("--metrics-on-admin needs --admin-port.") }
        guard redisTimeout > 0, redisTimeout <= 10 else { throw ValidationError("--redis-timeout must be more than 0 and at most 10 seconds.") }
        guard (tlsCert == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together.")
        }
        if let origin {
            guard let url = URL(string: origin), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                url.host != nil
            else { throw ValidationError("--origin must be an http or https URL with a host, like https://api.example.com.") }
        }
    }

    /// The server settings these options describe.
    ///
    /// - Throws: `TransportError` when the TLS certificate or key cannot be loaded.
    func makeConfiguration() throws(TransportError) -> GatewayConfiguration {
        var configuration = gatewayConfiguration
        if let tlsCert, let tlsKey {
            configuration.tls = try TLSContext.server(certificateFile: tlsCert, privateKeyFile: tlsKey)
        }
        return configuration
    }

    /// The settings that need no file access.
    var gatewayConfiguration: GatewayConfiguration {
        var configuration = GatewayConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.threads = threads
        configuration.origin = origin
        configuration.readPath.generation = OriginGeneration(rawValue: originGeneration) ?? .v1
        configuration.originVendorIdentifier = originVendorIdentifier
        configuration.maxBodyBytes = maxBodyBytes
        configuration.maxUploadBytes = maxUploadBytes
        configuration.images.originImageMaxBytes = originImageMaxBytes
        configuration.maxHeaderBytes = maxHeaderBytes
        configuration.maxTargetBytes = maxTargetBytes
        configuration.idleTimeout = .milliseconds(Int64(idleTimeout * 1000))
        configuration.headerTimeout = .milliseconds(Int64(headerTimeout * 1000))
        configuration.bodyTimeout = .milliseconds(Int64(bodyTimeout * 1000))
        configuration.writeTimeout = .milliseconds(Int64(writeTimeout * 1000))
        configuration.maxOutputBytes = maxOutputBytes
        configuration.maxConnections = maxConnections
        configuration.shutdownGrace = .milliseconds(Int64(shutdownGrace * 1000))
        configuration.compression.minimumBytes = gzipMinBytes
        configuration.originClient.connectTimeout = .seconds(originConnectTimeout)
        configuration.originClient.requestTimeout = .seconds(originTimeout)
        configuration.originClient.maxConnectionsPerLoop = originMaxConnections
        configuration.originCAFile = originCaFile
        configuration.readPath.cache.byteBudget = pageCacheBytes
        configuration.readPath.listTimeToLive = .seconds(listTtl)
        configuration.readPath.detailTimeToLive = .seconds(detailTtl)
        configuration.readPath.cache.staleWhileRevalidate = .seconds(staleWhileRevalidate)
        configuration.readPath.cache.staleIfError = .seconds(staleIfError)
        configuration.images.publicURL = publicUrl
        configuration.images.cacheDirectory = cacheDir
        configuration.images.signingKey = imageSigningKey
        configuration.images.allowedHosts = imageHosts
        configuration.images.maxImageBytes = maxImageBytes
        configuration.images.memoryBytes = imageMemoryBytes
        configuration.images.diskBytes = imageDiskBytes
        configuration.images.widths = ImageConfiguration.widths(imageWidths) ?? configuration.images.widths
        configuration.images.formats = ImageConfiguration.formats(imageFormats) ?? configuration.images.formats
        configuration.images.legacyTokens = legacyImageTokens
        configuration.images.avifSpeed = avifSpeed
        configuration.images.maxPixels = maxImagePixels
        configuration.images.renderTimeout = .milliseconds(Int64(imageRenderTimeout * 1000))
        configuration.images.resolveTimeout = .seconds(originConnectTimeout)
        configuration.rateLimits.reads = rateLimitReads.flatMap { RateRule(parsing: $0, burst: rateLimitBurst) }
        configuration.rateLimits.writes = rateLimitWrites.flatMap { RateRule(parsing: $0, burst: rateLimitBurst) }
        configuration.rateLimits.images = rateLimitImages.flatMap { RateRule(parsing: $0, burst: rateLimitBurst) }
        configuration.rateLimits.trustedProxies = trustedProxies.flatMap { AddressRanges(parsing: $0) } ?? .none
        configuration.rateLimits.keyHeader = rateLimitKeyHeader
        configuration.admin.port = adminPort
        configuration.admin.host = adminHost
        configuration.admin.token = adminToken
        configuration.admin.metricsOnAdmin = metricsOnAdmin
        if let redisUrl, var redis = try? RedisConfiguration(url: redisUrl) {
            redis.commandTimeout = .milliseconds(Int64(redisTimeout * 1000))
            configuration.redis = redis
        }
        return configuration
    }

    /// `--image-host` values, each possibly a comma-separated list (as the environment
    /// variable gives them).
    var imageHosts: [String] {
        imageHost.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func run() throws {
        BatchedLogHandler.bootstrap(
            level: Logger.Level(rawValue: logLevel.lowercased()) ?? .info, format: BatchedLogHandler.Format(rawValue: logFormat) ?? .text)
        defer { LogWriter.standardError.flush() }
        let logger = Logger(label: "gateway")
        let metrics = GatewayMetrics()
        var demoOrigin: DemoOrigin?
        do {
            var configuration = try makeConfiguration()
            // Without --origin the gateway brings its own: the demo origin on a loopback port,
            // in the chosen generation, writing as its first vendor unless told otherwise.
            if configuration.origin == nil {
                var demo = DemoOriginConfiguration()
                demo.generation = configuration.readPath.generation
                let origin = DemoOrigin(configuration: demo, logger: Logger(label: "demo-origin"))
                demoOrigin = origin
                configuration.origin = try origin.start().absoluteString
                if configuration.originVendorIdentifier == nil, configuration.readPath.generation != .v1 {
                    configuration.originVendorIdentifier = demo.vendors.first?.identifier
                }
            }
            let routes = try GatewayApplication.originRoutes(configuration: configuration, metrics: metrics)
            let server = GatewayServer(
                configuration: configuration, router: routes.router, logger: logger, metrics: metrics, replicaListener: routes.replicaListener)
            try server.start()
            let admin = try GatewayApplication.adminServer(configuration: configuration, routes: routes, metrics: metrics, logger: logger)
            try admin?.start()
            let signal = TerminationSignal.wait()
            logger.info("shutting down", metadata: ["signal": .stringConvertible(signal)])
            admin?.shutdown()
            server.shutdown()
            demoOrigin?.shutdown()
        } catch {
            logger.critical("cannot start", metadata: ["error": .string("\(error)")])
            demoOrigin?.shutdown()
            LogWriter.standardError.flush()
            throw ExitCode.failure
        }
    }
}
