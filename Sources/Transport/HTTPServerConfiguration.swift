import BodyCompression
import HTTPCodec
import HTTPInterface
import Tracing

/// What the server needs to know: where to listen, its limits and deadlines, its TLS context,
/// whether it speaks HTTP/2 besides HTTP/1.1, and how it compresses. Made by whoever assembles
/// a server (the gateway's runtime, the demo origin) from their own settings; what each loop's
/// requests reach besides (an origin client, Redis) is attached by them (`LoopAttachments`).
public struct HTTPServerConfiguration: Sendable {
    /// Address to listen on (`0.0.0.0`, `::`, `127.0.0.1`, or a host name resolved at start).
    public var host = "0.0.0.0"
    /// Port to listen on; 0 picks a free one, readable from `HTTPServer.port`.
    public var port = 8080
    /// Event loops, each with its own thread, listening socket and connections, on one port.
    public var threads = 1
    /// What every loop's decoders enforce (head, target and body sizes; upload routes).
    public var requestLimits = RequestLimits()
    public var idleTimeout: Duration = .seconds(30)
    public var headerTimeout: Duration = .seconds(10)
    public var bodyTimeout: Duration = .seconds(30)
    public var writeTimeout: Duration = .seconds(30)
    /// Response bytes queued per connection past which no more requests are read from it.
    public var maxOutputBytes = 4 * 1024 * 1024
    /// Open client connections per process; past it new ones get 503.
    public var maxConnections = 65_536
    /// How long in-flight requests may take to finish at shutdown.
    public var shutdownGrace: Duration = .seconds(10)
    public var listenBacklog = 1024
    /// Whether the port may be shared with another process that listens on it already
    /// (`--listen-shared`: a new binary started beside the old one). Otherwise start-up
    /// fails when it is taken.
    public var sharesPort = false
    /// Whether every answer gets an access line (at `info`); off, only the server's own
    /// lines (start, stop, warnings) are logged.
    public var logsRequests = true
    /// When and how answers are gzipped.
    public var compression = ResponseCompression()
    /// Bodies at least this large are compressed off the loop thread.
    public var offloadCompressionBytes = 64 * 1024
    /// Serve HTTPS with this context; nil serves plain HTTP.
    public var tls: TLSServerContext?
    /// HTTP/2 beside HTTP/1.1: off unless a server asks for it.
    public var http2 = HTTP2Configuration()
    /// Records a server span for each sampled request; nil: no tracing, and no cost.
    public var tracer: Tracer?

    public init() {}
}

/// HTTP/2 (RFC 9113) on a server's connections: with TLS, when ALPN chose `h2` (the context
/// must offer it: `TLSServerContext(files:offersHTTP2:)`); without,
/// when a connection opens with the HTTP/2 preface (h2c with prior knowledge). `Upgrade: h2c`
/// is not supported (RFC 9113 deprecates it).
public struct HTTP2Configuration: Sendable {
    public var enabled = false
    /// Streams a client may have open at once (`SETTINGS_MAX_CONCURRENT_STREAMS`).
    public var maxConcurrentStreams = 100
    /// Streams a client may reset in a burst before the connection is closed (nghttp2's
    /// rapid-reset limit, CVE-2023-44487; its default is 1000), refilled at
    /// ``streamResetRate`` per second.
    public var streamResetBurst = 200
    public var streamResetRate = 33
    /// CONTINUATION frames one header block may have (nghttp2's limit, CVE-2024-28182).
    public var maxContinuations = 8

    public init(enabled: Bool = false, maxConcurrentStreams: Int = 100) {
        self.enabled = enabled
        self.maxConcurrentStreams = maxConcurrentStreams
    }
}
