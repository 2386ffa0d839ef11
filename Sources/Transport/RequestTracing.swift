import GatewaySupport
import HTTPCodec
import HTTPInterface
import Tracing

/// What a recorded request's server span needs beyond what its exchange keeps: its trace (with
/// the server span's id), and the fields the HTTP conventions name. Made only for requests the
/// sampler chose; an unsampled request, or any request without tracing, makes none.
struct RecordedRequest: Sendable {
    let trace: TraceContext
    /// `Host`, or HTTP/2's `:authority`.
    let host: String?
    let userAgent: String?
    /// `https` over TLS.
    let scheme: String
}

extension ServerCore {
    /// `request` with the sampler's decision, and what its span needs when it is recorded:
    /// nil without tracing or when not sampled.
    func startTrace(of request: inout GatewayRequest, overTLS: Bool) -> RecordedRequest? {
        guard let tracer else { return nil }
        request.trace = tracer.start(request.trace)
        guard request.trace.spanID != nil else { return nil }
        return RecordedRequest(
            trace: request.trace, host: request.headers["Host"], userAgent: request.headers["User-Agent"], scheme: overTLS ? "https" : "http")
    }

    /// The sampler's decision for an answer from what is stored, read from the request's
    /// bytes: nothing is made unless it is recorded.
    func startTrace(ofStored request: RequestBytes, overTLS: Bool) -> RecordedRequest? {
        guard let tracer else { return nil }
        let traceparent = request.header("traceparent")
        let made: TraceContext? =
            if let traceparent {
                tracer.startStored(traceparent: traceparent) {
                    TraceContext.from(
                        traceparent: String(decoding: traceparent, as: UTF8.self),
                        tracestate: request.header("tracestate").map { String(decoding: $0, as: UTF8.self) })
                }
            } else {
                tracer.startStored(traceparent: nil) { TraceContext.begin() }
            }
        guard let made else { return nil }
        return RecordedRequest(
            trace: made, host: request.header("host").map { String(decoding: $0, as: UTF8.self) },
            userAgent: request.header("user-agent").map { String(decoding: $0, as: UTF8.self) }, scheme: overTLS ? "https" : "http")
    }

    /// The trace of a request the transport refused before the application saw it.
    func refusedTrace(traceparent: String?, overTLS: Bool) -> (TraceContext, RecordedRequest?) {
        let read = TraceContext.from(traceparent: traceparent, tracestate: nil)
        guard let tracer else { return (read, nil) }
        let trace = tracer.start(read)
        guard trace.spanID != nil else { return (trace, nil) }
        return (trace, RecordedRequest(trace: trace, host: nil, userAgent: nil, scheme: overTLS ? "https" : "http"))
    }

    /// Queues the server span of a recorded request answered after `elapsed`.
    func recordSpan(
        _ recorded: RecordedRequest, method: HTTPMethod, path: String, route: String, status: Int, wireProtocol: WireProtocol, peer: String,
        cache: CacheOutcome?, rateLimit: RateLimitFields?, user: String?, requestID: String, elapsed: Duration
    ) {
        guard let tracer else { return }
        let span = HTTPServerSpan(
            method: method.rawValue, path: path, route: route == "unmatched" || route == "malformed" ? nil : route, status: status,
            protocolVersion: wireProtocol.version, scheme: recorded.scheme, host: recorded.host, peer: peer, userAgent: recorded.userAgent,
            cacheStatus: cache?.rawValue, rateLimitClass: rateLimit?.policyName, user: user, requestID: requestID)
        tracer.recordServer(span, trace: recorded.trace, elapsed: elapsed)
    }
}

extension WireProtocol {
    /// `network.protocol.version`: `1.0`, `1.1` or `2`.
    var version: String {
        switch self {
        case .http10: "1.0"
        case .http11: "1.1"
        case .http2: "2"
        }
    }
}
