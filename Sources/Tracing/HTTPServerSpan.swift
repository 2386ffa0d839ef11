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
        var attributes: [SpanAttribute] = []
        attributes.reserveCapacity(16)
        forEachAttribute(recordsEndUser: recordsEndUser) { key, value in
            switch value {
            case .string(let text): attributes.append(SpanAttribute(key, String(text)))
            case .int(let number): attributes.append(SpanAttribute(key, .int(number)))
            }
        }
        let start = SpanRecord.start(endingAt: endNanoseconds, after: elapsed)
        let (method, route) = nameParts
        return SpanRecord(
            traceID: trace.traceID, spanID: trace.spanID ?? "", parentSpanID: trace.parentID, parentIsRemote: trace.parentID != nil,
            traceState: trace.state, name: route.map { method + " " + $0 } ?? method, kind: .server, startNanoseconds: start,
            endNanoseconds: endNanoseconds, status: isError ? .error("") : .unset, attributes: attributes)
    }

    /// An attribute's value as ``forEachAttribute(recordsEndUser:_:)`` hands it over: text as
    /// a view of the span's own strings, so that an encoder copies it once, into its output.
    enum AttributeView {
        case string(Substring)
        case int(Int64)
    }

    /// Whether the span is an error: a 5xx answer (a 4xx is the client's, not the server's).
    var isError: Bool { status >= 500 }

    /// The span's name in its two parts: `{method}` (`HTTP` for a method the conventions do
    /// not know) and the route, when one matched.
    var nameParts: (method: String, route: String?) {
        (SemanticConventions.isKnownMethod(method) ? method : "HTTP", route)
    }

    /// Each attribute of the span, in the order exported: the one list both the
    /// ``SpanRecord`` and the protobuf encoder (`OTLPProtobuf`) read.
    func forEachAttribute(recordsEndUser: Bool, _ body: (String, AttributeView) -> Void) {
        typealias Names = SemanticConventions
        let known = SemanticConventions.isKnownMethod(method)
        body(Names.httpRequestMethod, .string(known ? Substring(method) : "_OTHER"))
        if !known { body(Names.httpRequestMethodOriginal, .string(Substring(method))) }
        body(Names.urlPath, .string(Substring(path)))
        body(Names.urlScheme, .string(Substring(scheme)))
        if let route { body(Names.httpRoute, .string(Substring(route))) }
        body(Names.httpResponseStatusCode, .int(Int64(status)))
        body(Names.networkProtocolVersion, .string(Substring(protocolVersion)))
        if let host, let (address, port) = Self.hostAndPort(host) {
            body(Names.serverAddress, .string(address))
            if let port { body(Names.serverPort, .int(Int64(port))) }
        }
        body(Names.clientAddress, .string(Self.address(ofPeer: peer)))
        if let userAgent { body(Names.userAgentOriginal, .string(Substring(userAgent))) }
        if isError { body(Names.errorType, .string(Substring(String(status)))) }
        if let cacheStatus { body(Names.cacheStatus, .string(Substring(cacheStatus))) }
        if let rateLimitClass { body(Names.rateLimitClass, .string(Substring(rateLimitClass))) }
        if recordsEndUser, let user { body(Names.enduserID, .string(Substring(user))) }
        body(Names.requestID, .string(Substring(requestID)))
    }

    /// A server span as the exporter reads it back from the queue (``ServerSpanLog``): written
    /// as protobuf from its fields (`OTLPProtobuf`), or made into a ``SpanRecord`` (JSON).
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
    static func hostAndPort(_ field: String) -> (Substring, Int?)? {
        let bytes = field.utf8
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            let address = field[bytes.index(after: bytes.startIndex)..<close]
            let rest = bytes[bytes.index(after: close)...]
            if rest.isEmpty { return (address, nil) }
            guard rest.first == UInt8(ascii: ":"), let port = Self.port(rest.dropFirst()) else { return nil }
            return (address, port)
        }
        guard let colon = bytes.lastIndex(of: UInt8(ascii: ":")) else { return field.isEmpty ? nil : (field[...], nil) }
        guard let port = Self.port(bytes[bytes.index(after: colon)...]) else { return nil }
        return (field[..<colon], port)
    }

    /// A port: 1 to 5 decimal digits, at most 65535.
    private static func port(_ digits: Substring.UTF8View) -> Int? {
        guard (1...5).contains(digits.count) else { return nil }
        var value = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return value <= 65535 ? value : nil
    }

    /// The address of a peer written `address:port` or `[address]:port`.
    static func address(ofPeer peer: String) -> Substring {
        let bytes = peer.utf8
        if bytes.first == UInt8(ascii: "["), let close = bytes.firstIndex(of: UInt8(ascii: "]")) {
            return peer[bytes.index(after: bytes.startIndex)..<close]
        }
        guard let colon = bytes.lastIndex(of: UInt8(ascii: ":")) else { return peer[...] }
        return peer[..<colon]
    }
}
