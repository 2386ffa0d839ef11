import GatewaySupport

/// What a client span says of one request the gateway made (to the origin), under the stable
/// HTTP client conventions: named by its method, an error for 4xx and 5xx answers and for
/// requests that got none (`error.type`: the status, or why: `timeout`, `connect_failed`…).
/// `url.full` keeps the query's names but not its values (`?page=REDACTED`).
public struct HTTPClientSpan: Sendable {
    public var method: String
    /// `http` or `https`.
    public var scheme: String
    public var host: String
    public var port: Int
    /// Path and query as sent.
    public var target: String
    /// The answer's status; nil when there was none.
    public var status: Int?
    /// Why there was no answer (`timeout`, `connect_failed`, …); nil when there was one.
    public var failure: String?

    public init(method: String, scheme: String, host: String, port: Int, target: String, status: Int?, failure: String?) {
        self.method = method
        self.scheme = scheme
        self.host = host
        self.port = port
        self.target = target
        self.status = status
        self.failure = failure
    }

    /// The span `spanID`, a child of `trace`'s server span, ended at `endNanoseconds` after
    /// `elapsed`.
    public func record(trace: TraceContext, spanID: String, elapsed: Duration, endNanoseconds: UInt64 = Tracer.wallClockNanoseconds()) -> SpanRecord {
        typealias Names = SemanticConventions
        let known = Names.isKnownMethod(method)
        var attributes: [SpanAttribute] = [
            SpanAttribute(Names.httpRequestMethod, known ? method : "_OTHER"), SpanAttribute(Names.serverAddress, host),
            SpanAttribute(Names.serverPort, port), SpanAttribute(Names.urlFull, fullURL),
        ]
        if let status { attributes.append(SpanAttribute(Names.httpResponseStatusCode, status)) }
        var spanStatus = SpanRecord.Status.unset
        if let failure {
            attributes.append(SpanAttribute(Names.errorType, failure))
            spanStatus = .error(failure)
        } else if let status, status >= 400 {
            attributes.append(SpanAttribute(Names.errorType, String(status)))
            spanStatus = .error("")
        }
        return SpanRecord(
            traceID: trace.traceID, spanID: spanID, parentSpanID: trace.spanID, traceState: trace.state, name: known ? method : "HTTP",
            kind: .client, startNanoseconds: SpanRecord.start(endingAt: endNanoseconds, after: elapsed), endNanoseconds: endNanoseconds,
            status: spanStatus, attributes: attributes)
    }

    /// `scheme://host[:port]path?name=REDACTED&…`: the port only when it is not the scheme's
    /// default, IPv6 hosts in brackets, query values left out.
    var fullURL: String {
        let isDefaultPort = (scheme == "http" && port == 80) || (scheme == "https" && port == 443)
        let hostPart = host.contains(":") ? "[" + host + "]" : host
        var url = scheme + "://" + hostPart + (isDefaultPort ? "" : ":" + String(port))
        guard let question = target.firstIndex(of: "?") else { return url + target }
        url += target[..<question]
        let query = target[target.index(after: question)...]
        let redacted = query.split(separator: "&", omittingEmptySubsequences: false).map { member -> String in
            guard let equals = member.firstIndex(of: "=") else { return String(member) }
            return member[..<equals] + "=REDACTED"
        }
        return url + "?" + redacted.joined(separator: "&")
    }
}
