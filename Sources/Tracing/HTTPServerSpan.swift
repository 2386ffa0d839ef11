import GatewaySupport

/// What a server span says of one answered request, under the stable HTTP server
/// conventions: named `{method} {http.route}` (`{method}` alone when no route matched;
/// `HTTP` for a method the conventions do not know), an error only for 5xx.
public struct HTTPServerSpan: Sendable {
    public var method: String
    /// The path as sent, without the query.
    public var path: String
    /// The route's template (`/v1/products/{id}`); nil when no route matched.
    public var route: String?
    public var status: Int
    /// `1.0`, `1.1` or `2`.
    public var protocolVersion: String
    /// `https` over TLS, else `http`.
    public var scheme: String
    /// The `Host` field (or `:authority`), host and optional port.
    public var host: String?
    /// The peer: `address:port` or `[address]:port`.
    public var peer: String
    public var userAgent: String?
    public var cacheStatus: String?
    public var rateLimitClass: String?
    /// The verified token's subject (kept only when the operator turned `enduser.id` on).
    public var user: String?
    public var requestID: String

    public init(
        method: String, path: String, route: String?, status: Int, protocolVersion: String, scheme: String, host: String?, peer: String,
        userAgent: String?, cacheStatus: String?, rateLimitClass: String?, user: String?, requestID: String
    ) {
        self.method = method
        self.path = path
        self.route = route
        self.status = status
        self.protocolVersion = protocolVersion
        self.scheme = scheme
        self.host = host
        self.peer = peer
        self.userAgent = userAgent
        self.cacheStatus = cacheStatus
        self.rateLimitClass = rateLimitClass
        self.user = user
        self.requestID = requestID
    }

    /// The span of a request in `trace` (which must carry a server span id), ended now after
    /// `elapsed`.
    public func record(trace: TraceContext, elapsed: Duration, endNanoseconds: UInt64 = Tracer.wallClockNanoseconds(), recordsEndUser: Bool)
        -> SpanRecord
    {
        typealias Names = SemanticConventions
        let known = Names.knownMethods.contains(method)
        let spanMethod = known ? method : "HTTP"
        var attributes: [SpanAttribute] = []
        attributes.reserveCapacity(16)
        attributes.append(SpanAttribute(Names.httpRequestMethod, known ? method : "_OTHER"))
        if !known { attributes.append(SpanAttribute(Names.httpRequestMethodOriginal, method)) }
        attributes.append(SpanAttribute(Names.urlPath, path))
        attributes.append(SpanAttribute(Names.urlScheme, scheme))
        if let route { attributes.append(SpanAttribute(Names.httpRoute, route)) }
        attributes.append(SpanAttribute(Names.httpResponseStatusCode, status))
        attributes.append(SpanAttribute(Names.networkProtocolVersion, protocolVersion))
        if let host, let (address, port) = Self.hostAndPort(host) {
            attributes.append(SpanAttribute(Names.serverAddress, address))
            if let port { attributes.append(SpanAttribute(Names.serverPort, port)) }
        }
        attributes.append(SpanAttribute(Names.clientAddress, Self.address(ofPeer: peer)))
        if let userAgent { attributes.append(SpanAttribute(Names.userAgentOriginal, userAgent)) }
        if status >= 500 { attributes.append(SpanAttribute(Names.errorType, String(status))) }
        if let cacheStatus { attributes.append(SpanAttribute(Names.cacheStatus, cacheStatus)) }
        if let rateLimitClass { attributes.append(SpanAttribute(Names.rateLimitClass, rateLimitClass)) }
        if recordsEndUser, let user { attributes.append(SpanAttribute(Names.enduserID, user)) }
        attributes.append(SpanAttribute(Names.requestID, requestID))
        let start = SpanRecord.start(endingAt: endNanoseconds, after: elapsed)
        return SpanRecord(
            traceID: trace.traceID, spanID: trace.spanID ?? "", parentSpanID: trace.parentID, parentIsRemote: trace.parentID != nil,
            traceState: trace.state, name: route.map { spanMethod + " " + $0 } ?? spanMethod, kind: .server, startNanoseconds: start,
            endNanoseconds: endNanoseconds, status: status >= 500 ? .error("") : .unset, attributes: attributes)
    }

    /// A server span as its loop queued it: made into a ``SpanRecord`` by the exporter.
    public struct Finished: Sendable {
        public var fields: HTTPServerSpan
        public var trace: TraceContext
        public var elapsed: Duration
        public var endNanoseconds: UInt64
        public var recordsEndUser: Bool

        public var record: SpanRecord {
            fields.record(trace: trace, elapsed: elapsed, endNanoseconds: endNanoseconds, recordsEndUser: recordsEndUser)
        }
    }

    /// `host`, `host:port`, `[v6]` or `[v6]:port` as the address and port; nil when it is
    /// none of these.
    static func hostAndPort(_ field: String) -> (String, Int?)? {
        if field.hasPrefix("[") {
            guard let close = field.firstIndex(of: "]") else { return nil }
            let address = String(field[field.index(after: field.startIndex)..<close])
            let rest = field[field.index(after: close)...]
            if rest.isEmpty { return (address, nil) }
            guard rest.hasPrefix(":"), let port = Int(rest.dropFirst()), (0...65535).contains(port) else { return nil }
            return (address, port)
        }
        guard let colon = field.lastIndex(of: ":") else { return field.isEmpty ? nil : (field, nil) }
        guard let port = Int(field[field.index(after: colon)...]), (0...65535).contains(port) else { return nil }
        return (String(field[..<colon]), port)
    }

    /// The address of a peer written `address:port` or `[address]:port`.
    static func address(ofPeer peer: String) -> String {
        if peer.hasPrefix("["), let close = peer.firstIndex(of: "]") {
            return String(peer[peer.index(after: peer.startIndex)..<close])
        }
        guard let colon = peer.lastIndex(of: ":") else { return peer }
        return String(peer[..<colon])
    }
}
