import HTTPCodec
import HTTPInterface
import Logging
import Observability
import Synchronization
import Tracing

/// What every loop of one server shares: settings, the application, the logger and the
/// count of requests that have not been answered yet. Immutable but for the atomics; any
/// thread.
final class ServerCore: Sendable {
    let configuration: HTTPServerConfiguration
    let application: any ServerApplication
    let logger: Logger
    let metrics: GatewayMetrics
    /// Requests read but not answered yet, across all loops.
    let inFlight = Atomic<Int>(0)
    /// Begun when shutdown begins: replies then carry `Connection: close`.
    let drain = DrainState()
    /// Open client connections, across all loops (bounded by `maxConnections`).
    let connections = Atomic<Int>(0)
    /// Of ``connections``, those speaking HTTP/2.
    let http2Connections = Atomic<Int>(0)

    /// Whether answers get access lines (``HTTPServerConfiguration/logsRequests``).
    let logsRequests: Bool
    /// The request limits every loop's decoders enforce.
    let requestLimits: RequestLimits
    /// nghttp2's callbacks and options, when the server speaks HTTP/2.
    let http2: HTTP2SessionTemplate?
    /// Where sampled requests' spans go; nil without tracing.
    let tracer: Tracer?

    init(configuration: HTTPServerConfiguration, application: any ServerApplication, logger: Logger, metrics: GatewayMetrics) {
        self.configuration = configuration
        self.application = application
        self.logger = logger
        self.metrics = metrics
        requestLimits = configuration.requestLimits
        logsRequests = configuration.logsRequests
        tracer = configuration.tracer
        http2 = configuration.http2.enabled ? HTTP2SessionTemplate(configuration: configuration.http2) : nil
    }
}
