import Foundation

/// Every setting of the server, with the defaults a production gateway wants. The server
/// applies all of them to libevent explicitly, so nothing depends on libevent's defaults.
public struct GatewayConfiguration: Sendable {
    /// Address to listen on (`0.0.0.0`, `::`, `127.0.0.1`, or a host name resolved at start).
    public var host: String = "0.0.0.0"
    /// Port to listen on; 0 picks a free one (tests), readable from `GatewayServer.port`.
    public var port: Int = 8080
    /// Event loops, each with its own thread, event_base and evhttp, all on one port.
    public var threads: Int = GatewayConfiguration.defaultThreads
    /// The origin's base URL; nil runs the gateway on its embedded demo origin.
    public var origin: String?
    /// The largest request body accepted; larger ones get 413 before they are buffered.
    public var maxBodyBytes: Int = 4 * 1024 * 1024
    /// The largest request line plus header block accepted.
    public var maxHeaderBytes: Int = 16 * 1024
    /// How long a client connection may stay silent (while sending a request, or idle
    /// between keep-alive requests) before the gateway closes it.
    public var idleTimeout: Duration = .seconds(30)
    /// On SIGTERM or SIGINT: how long in-flight requests may take to finish.
    public var shutdownGrace: Duration = .seconds(10)
    /// The kernel's accept queue per listening socket.
    public var listenBacklog: Int = 1024
    /// When and how responses are gzipped.
    public var compression = ResponseCompression()
    /// Limits of the origin client (per loop).
    public var originClient = OriginClientConfiguration()
    /// A PEM file of CAs trusted for an https origin instead of the system's.
    public var originCAFile: String?
    /// Caching and mapping of the product read path.
    public var readPath = ReadPathConfiguration()
    /// Signed image URLs, image fetching and the image cache.
    public var images = ImageConfiguration()
    /// Serve HTTPS with this server context instead of plain HTTP.
    public var tls: TLSContext?
    /// Bodies at least this large are compressed off the loop thread.
    public var offloadCompressionBytes: Int = 64 * 1024

    public init() {}

    public static var defaultThreads: Int {
        max(1, ProcessInfo.processInfo.activeProcessorCount)
    }
}
