import GatewaySupport

/// One request to the origin. The client adds `Host`, `Accept-Encoding: gzip`,
/// `Content-Length`, `X-Request-ID`, and with a trace `traceparent` (a new span id per
/// exchange) and `tracestate`.
public struct OriginRequest: Sendable {
    public var method: HTTPMethod
    /// Path and query below the endpoint's base path (`/items/1`, `/item/7`).
    public var target: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The client request's id, passed on as `X-Request-ID`.
    public var requestID: String
    /// The largest response body accepted for this request (after gunzip); nil for the
    /// client's `maxResponseBytes`.
    public var maxResponseBytes: Int?
    /// The client request's trace: passed on (`traceparent`, `tracestate`), and the request
    /// recorded in it as a client span when tracing records the trace; nil: neither.
    public var trace: TraceContext?
    /// Whether `trace` is sent (false for image hosts, which are not the origin: the request is
    /// recorded, nothing of the trace leaves the gateway).
    public var propagatesTrace = true

    public init(
        method: HTTPMethod, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [], requestID: String,
        maxResponseBytes: Int? = nil, trace: TraceContext? = nil
    ) {
        self.trace = trace
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.requestID = requestID
        self.maxResponseBytes = maxResponseBytes
    }

    /// Only these are retried (once, on a reused connection that broke before any byte of
    /// the response): repeating them cannot create or change anything.
    package var isIdempotent: Bool { method == .get || method == .head }
}

/// The origin's answer, its body already gunzipped.
public struct OriginResponse: Sendable, Equatable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
