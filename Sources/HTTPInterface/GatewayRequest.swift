import GatewaySupport

/// One request as handlers see it: plain values, copied out of the connection's read buffer
/// on the loop thread once the whole body is there.
public struct GatewayRequest: Sendable {
    public var method: HTTPMethod
    /// The path as sent, still percent-encoded, without the query (`/v1/products/7`).
    public var path: String
    /// The raw query string without `?`, or nil when the target had none.
    public var query: String?
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The request id: the client's `X-Request-ID` when it was acceptable, a new one otherwise.
    public var requestID: String
    /// The client's address and port (`127.0.0.1:53012`), when known.
    public var peer: String?
    /// The method as sent when it is none of `HTTPMethod` (then `method` is meaningless and
    /// the transport answers 405 or 501 without routing).
    public var unknownMethod: String?
    /// The client's trace context (`traceparent`, `tracestate`) when valid, else a new trace.
    public var trace: TraceContext
    /// Who sent it, when a bearer token was verified (set by the application before its
    /// handler runs; never from a header the client names otherwise).
    public var identity: RequestIdentity?

    public init(
        method: HTTPMethod, path: String, query: String? = nil, headers: HTTPHeaders = [:],
        body: [UInt8] = [], requestID: String = RequestID.generate(), peer: String? = nil, trace: TraceContext? = nil
    ) {
        self.trace = trace ?? TraceContext.from(
            traceparent: headers["traceparent"], tracestate: headers.values("tracestate").joined(separator: ","))
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.requestID = requestID
        self.peer = peer
    }

    /// The query's parameters, percent-decoded (`+` is a space), in order.
    public var queryItems: [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentDecoding.decode(parts[0], plusIsSpace: true) ?? String(parts[0])
            let value = parts.count > 1 ? (PercentDecoding.decode(parts[1], plusIsSpace: true) ?? String(parts[1])) : ""
            return (name, value)
        }
    }

    /// The first value of query parameter `name`, percent-decoded. Names are compared as
    /// sent (a percent-encoded name is decoded first, as `queryItems` does).
    public func queryValue(_ name: String) -> String? {
        guard let query, !query.isEmpty else { return nil }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: "=")
            let rawName = pair[..<(equals ?? pair.endIndex)]
            guard rawName == name[...] || (rawName.contains("%") || rawName.contains("+"))
                && PercentDecoding.decode(rawName, plusIsSpace: true) == name
            else { continue }
            guard let equals else { return "" }
            let rawValue = pair[pair.index(after: equals)...]
            return PercentDecoding.decode(rawValue, plusIsSpace: true) ?? String(rawValue)
        }
        return nil
    }
}
