import CoreMetrics
import HTTPInterface

/// One loop's handles on the request metrics, made once per (route, method, protocol, status) and
/// then reused, so recording a request costs a dictionary lookup and a few atomic adds.
///
/// Invariant: used only on its loop's thread (the handles themselves are thread-safe).
package final class RequestMetrics {
    private struct Key: Hashable {
        let route: String
        let method: HTTPMethod
        let wireProtocol: WireProtocol
        let status: Int
    }

    private struct Handles {
        let requests: CoreMetrics.Counter
        let duration: CoreMetrics.Timer
    }

    private let metrics: GatewayMetrics
    private var handles: [Key: Handles] = [:]
    private let identityBytes: CoreMetrics.Counter
    private let gzipBytes: CoreMetrics.Counter
    private let uncompressedBytes: CoreMetrics.Counter

    package init(metrics: GatewayMetrics) {
        self.metrics = metrics
        identityBytes = metrics.counter("gateway_http_response_body_bytes_total", [("encoding", "identity")])
        gzipBytes = metrics.counter("gateway_http_response_body_bytes_total", [("encoding", "gzip")])
        uncompressedBytes = metrics.counter("gateway_http_response_uncompressed_bytes_total")
    }

    /// Records one answered request. `sentBytes` is the body as sent; `uncompressedBytes`
    /// the body before gzip (equal when not compressed).
    package func record(
        route: String, method: HTTPMethod, wireProtocol: WireProtocol, status: Int, duration: Duration, sentBytes: Int, uncompressedBytes: Int,
        gzip: Bool
    ) {
        let key = Key(route: route, method: method, wireProtocol: wireProtocol, status: status)
        let handle: Handles
        if let existing = handles[key] {
            handle = existing
        } else {
            handle = Handles(
                requests: metrics.counter(
                    "gateway_http_requests_total",
                    [("route", route), ("method", method.rawValue), ("protocol", wireProtocol.rawValue), ("status", String(status))]),
                duration: metrics.timer("gateway_http_request_duration_seconds", [("route", route)]))
            handles[key] = handle
        }
        handle.requests.increment()
        handle.duration.recordNanoseconds(duration.nanoseconds)
        (gzip ? gzipBytes : identityBytes).increment(by: Int64(sentBytes))
        self.uncompressedBytes.increment(by: Int64(uncompressedBytes))
    }
}
