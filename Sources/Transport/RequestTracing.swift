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
    let overTLS: Bool
}

/// A stored answer's request that tracing records: its trace, and where the request's text
/// its span needs lies in the loop's `ServerLoop.spanText`, copied there while the request's
/// bytes were at hand, so that no string is made for it. Valid until the loop's next span.
struct RecordedStored {
    let trace: TraceContext
    let overTLS: Bool
    let path: Range<Int>
    let host: Range<Int>?
    let userAgent: Range<Int>?
    let traceState: Range<Int>?
    /// Where the answer's `X-Request-ID` lies (``noteRequestID(_:text:)``).
    private(set) var requestID = 0..<0

    init(trace: TraceContext, overTLS: Bool, path: Range<Int>, host: Range<Int>?, userAgent: Range<Int>?, traceState: Range<Int>?) {
        self.trace = trace
        self.overTLS = overTLS
        self.path = path
        self.host = host
        self.userAgent = userAgent
        self.traceState = traceState
    }

    /// Copies the answer's request id into the loop's span text.
    mutating func noteRequestID(_ id: ArraySlice<UInt8>, text: inout ServerSpanText) {
        requestID = id.withUnsafeBytes { text.add($0) }
    }
}

extension ServerCore {
    /// `request` with the sampler's decision, and what its span needs when it is recorded:
    /// nil without tracing or when not sampled.
    func startTrace(of request: inout GatewayRequest, overTLS: Bool) -> RecordedRequest? {
        guard let tracer else { return nil }
        request.trace = tracer.start(request.trace)
        guard request.trace.isRecorded else { return nil }
        return RecordedRequest(trace: request.trace, host: request.headers["Host"], userAgent: request.headers["User-Agent"], overTLS: overTLS)
    }

    /// The sampler's decision for an answer from what is stored, read from the request's
    /// bytes: nothing is made unless it is recorded, and then only numbers (and the client's
    /// `tracestate`), and the text its span needs copied into `text` (emptied first).
    func startTrace(ofStored request: RequestBytes, overTLS: Bool, text: inout ServerSpanText) -> RecordedStored? {
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
        text.reset()
        return RecordedStored(
            trace: made, overTLS: overTLS, path: text.add(request.path), host: request.header("host").map { text.add($0) },
            userAgent: request.header("user-agent").map { text.add($0) }, traceState: made.state.map { text.add($0) })
    }

    /// The trace of a request the transport refused before the application saw it.
    func refusedTrace(traceparent: String?, overTLS: Bool) -> (TraceContext, RecordedRequest?) {
        let read = TraceContext.from(traceparent: traceparent, tracestate: nil)
        guard let tracer else { return (read, nil) }
        let trace = tracer.start(read)
        guard trace.isRecorded else { return (trace, nil) }
        return (trace, RecordedRequest(trace: trace, host: nil, userAgent: nil, overTLS: overTLS))
    }

    /// Queues the server span of a recorded request answered after `elapsed`, its text
    /// gathered in the loop's `text`.
    func recordSpan(
        _ recorded: RecordedRequest, text: inout ServerSpanText, method: HTTPMethod, path: String, route: String, status: Int,
        wireProtocol: WireProtocol, peer: String, cache: CacheOutcome?, rateLimit: RateLimitFields?, user: String?, requestID: String,
        elapsed: Duration
    ) {
        guard let tracer else { return }
        text.reset()
        let fields = ServerSpanFields(
            trace: recorded.trace, status: status, overTLS: recorded.overTLS, elapsed: elapsed, method: text.add(method.rawValue),
            path: text.add(path), route: Self.spanRoute(route).map { text.add($0) }, protocolVersion: text.add(wireProtocol.version),
            host: text.add(recorded.host), peer: text.add(peer), userAgent: text.add(recorded.userAgent), cacheStatus: text.add(cache?.rawValue),
            rateLimitClass: text.add(rateLimit?.policyName), user: text.add(user), requestID: text.add(requestID),
            traceState: text.add(recorded.trace.state))
        tracer.recordServer(fields, text: text)
    }

    /// Queues the server span of a stored answer, its request's text already in `text`.
    func recordSpan(
        _ recorded: RecordedStored, text: inout ServerSpanText, method: HTTPMethod, route: String, status: Int, wireProtocol: WireProtocol,
        peer: String, fromCache: Bool, rateLimit: RateLimitFields?, user: String?, elapsed: Duration
    ) {
        guard let tracer else { return }
        let fields = ServerSpanFields(
            trace: recorded.trace, status: status, overTLS: recorded.overTLS, elapsed: elapsed, method: text.add(method.rawValue),
            path: recorded.path, route: Self.spanRoute(route).map { text.add($0) }, protocolVersion: text.add(wireProtocol.version),
            host: recorded.host, peer: text.add(peer), userAgent: recorded.userAgent, cacheStatus: fromCache ? text.add(CacheOutcome.hit.rawValue) : nil,
            rateLimitClass: text.add(rateLimit?.policyName), user: text.add(user), requestID: recorded.requestID, traceState: recorded.traceState)
        tracer.recordServer(fields, text: text)
    }

    /// `http.route`: the route's template, which begins with `/`; none for the labels of
    /// requests no route matched (`unmatched`, `malformed`), which do not.
    private static func spanRoute(_ route: String) -> String? {
        route.utf8.first == UInt8(ascii: "/") ? route : nil
    }
}

extension WireProtocol {
    /// `network.protocol.version`: `1.0`, `1.1` or `2`.
    var version: StaticString {
        switch self {
        case .http10: "1.0"
        case .http11: "1.1"
        case .http2: "2"
        }
    }
}
