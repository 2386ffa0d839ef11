import BodyCompression
import Foundation
import HTTPInterface
import HTTPCodec
import Tracing
#if canImport(Glibc)
import Glibc
#endif

/// Every setting of the server, with the defaults a production gateway wants.
public struct GatewayConfiguration: Sendable {
    /// Address to listen on (`0.0.0.0`, `::`, `127.0.0.1`, or a host name resolved at start).
    public var host: String = "0.0.0.0"
    /// Port to listen on; 0 picks a free one (tests), readable from the server's `port`.
    public var port: Int = 8080
    /// Event loops, each with its own thread, event_base, listening socket and connections,
    /// all on one port.
    public var threads: Int = GatewayConfiguration.defaultThreads
    /// The origin: its URL, generation, vendor identifier, trusted CAs and client limits.
    public var origin = OriginConfiguration()
    /// Spans exported over OTLP/HTTP (`--tracing-*` and the `OTEL_*` variables); nil: no
    /// tracing.
    public var tracing: TracingConfiguration?
    /// The largest request body accepted; larger ones get 413 before they are buffered.
    public var maxBodyBytes: Int = 4 * 1024 * 1024
    /// The largest body of a write that may carry images: five phone photos in base64 pass
    /// 4 MiB. The routes that take it declare it in the route table (`bodyLimit: .upload`:
    /// product creates and updates).
    public var maxUploadBytes: Int = 32 * 1024 * 1024
    /// The largest request line plus header block accepted; larger heads get 431.
    public var maxHeaderBytes: Int = 16 * 1024
    /// The longest request-target accepted; longer ones get 414.
    public var maxTargetBytes: Int = 8192
    /// How long a keep-alive connection may wait for its next request before it is closed.
    public var idleTimeout: Duration = .seconds(30)
    /// How long a client has to send a whole request head, from its first byte; then 408.
    public var headerTimeout: Duration = .seconds(10)
    /// How long a request body may make no progress; then 408.
    public var bodyTimeout: Duration = .seconds(30)
    /// How long a client may leave written bytes unread before it is disconnected.
    public var writeTimeout: Duration = .seconds(30)
    /// Response bytes queued per connection past which the gateway reads no more requests
    /// from it until it has read its answers.
    public var maxOutputBytes: Int = 4 * 1024 * 1024
    /// Open client connections per process; past it new ones get 503 (idle keep-alive
    /// connections are closed first to make room).
    public var maxConnections: Int = GatewayConfiguration.defaultMaxConnections
    /// On SIGTERM or SIGINT: how long in-flight requests may take to finish.
    public var shutdownGrace: Duration = .seconds(10)
    /// The kernel's accept queue per listening socket.
    public var listenBacklog: Int = 1024
    /// `--listen-shared`: start even when another process listens on the port (and the admin
    /// port) already, sharing it (`SO_REUSEPORT`), for a hand-over to a new binary; off, a
    /// taken port fails the start.
    public var listenShared = false
    /// When and how responses are gzipped.
    public var compression = ResponseCompression()
    /// Caching and mapping of the product read path.
    public var readPath = ReadPathConfiguration()
    /// Signed image URLs, image fetching and the image cache.
    public var images = ImageConfiguration()
    /// Serve HTTPS with this certificate and key instead of plain HTTP (loaded at start).
    public var tls: TLSConfiguration?
    /// HTTP/2 beside HTTP/1.1: `h2` by ALPN with TLS, h2c with prior knowledge without.
    public var http2 = true
    /// HTTP/2 streams a client may have open at once.
    public var http2MaxConcurrentStreams = 100
    /// The replicas' shared Redis (idempotency keys, across replicas and restarts); nil runs
    /// this process on its own, with everything in memory.
    public var redis: RedisConfiguration?
    /// The admin listener; off by default.
    public var admin = AdminConfiguration()
    /// Per-client budgets; off by default.
    public var rateLimits = RateLimitConfiguration()
    /// Sign-in at the edge: bearer tokens verified against an identity provider's keys; nil
    /// (the default) leaves authentication off and `Authorization` headers ignored.
    public var auth: AuthConfiguration?
    /// Bodies at least this large are compressed off the loop thread.
    public var offloadCompressionBytes: Int = 64 * 1024

    public init() {}

    /// Descriptors reserved for origin connections, cache files and the like when the
    /// connection cap is derived from the descriptor limit.
    public static let reservedDescriptors = 256

    /// The soft `RLIMIT_NOFILE` less `reservedDescriptors`, at least 16.
    public static var defaultMaxConnections: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return 65_536 }
        return max(16, Int(min(limit.rlim_cur, 1 << 20)) - reservedDescriptors)
    }

    /// The CPUs the process may use (`ProcessorBudget`): its affinity mask, lowered to a
    /// cgroup CPU quota. Read once.
    public static let defaultThreads: Int = ProcessorBudget.count()
}

/// The files of the server's TLS certificate chain and private key (PEM), its session ticket
/// keys, and how often they are checked for changes.
public struct TLSConfiguration: Sendable, Equatable {
    public var certificateFile: String
    public var privateKeyFile: String
    /// 80-byte session ticket keys (nginx's `ssl_session_ticket_key` format), the first sealing
    /// new tickets; empty: a random key per process.
    public var ticketKeyFiles: [String]
    /// How often the files are checked and reloaded when changed; nil: only on SIGHUP.
    public var reloadInterval: Duration?

    public init(certificateFile: String, privateKeyFile: String, ticketKeyFiles: [String] = [], reloadInterval: Duration? = nil) {
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
        self.ticketKeyFiles = ticketKeyFiles
        self.reloadInterval = reloadInterval
    }
}
