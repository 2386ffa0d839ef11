/// One finished span, as the exporter sends it: ids, name, kind, times, status, attributes
/// and links. A value: made on the loop that finished the span, then handed to the
/// ``SpanQueue`` and encoded on the exporter's thread.
public struct SpanRecord: Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        case internalWork = 1
        case server = 2
        case client = 3
    }

    /// A span's status: unset, or an error with a short description (OpenTelemetry's
    /// `Status`; the gateway never sets `OK`).
    public enum Status: Sendable, Equatable {
        case unset
        case error(String)
    }

    /// 32 lower-case hex digits.
    public var traceID: String
    /// 16 lower-case hex digits.
    public var spanID: String
    /// The parent span's 16 hex digits; nil for a root span.
    public var parentSpanID: String?
    /// Whether the parent span is another process's (the client's `traceparent`).
    public var parentIsRemote: Bool
    /// The W3C `tracestate` the span was made under, passed on as it came.
    public var traceState: String?
    public var name: String
    public var kind: Kind
    /// Nanoseconds since the Unix epoch.
    public var startNanoseconds: UInt64
    public var endNanoseconds: UInt64
    public var status: Status
    public var attributes: [SpanAttribute]
    public var links: [SpanLink]

    public init(
        traceID: String, spanID: String, parentSpanID: String?, parentIsRemote: Bool = false, traceState: String? = nil, name: String, kind: Kind,
        startNanoseconds: UInt64, endNanoseconds: UInt64, status: Status = .unset, attributes: [SpanAttribute] = [], links: [SpanLink] = []
    ) {
        self.traceID = traceID
        self.spanID = spanID
        self.parentSpanID = parentSpanID
        self.parentIsRemote = parentIsRemote
        self.traceState = traceState
        self.name = name
        self.kind = kind
        self.startNanoseconds = startNanoseconds
        self.endNanoseconds = endNanoseconds
        self.status = status
        self.attributes = attributes
        self.links = links
    }
}

extension SpanRecord {
    /// The start, in nanoseconds since the epoch, of a span that ended at `end` after
    /// `elapsed` (never before the epoch).
    static func start(endingAt end: UInt64, after elapsed: Duration) -> UInt64 {
        let (seconds, attoseconds) = elapsed.components
        let nanoseconds = UInt64(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
        return end - min(end, nanoseconds)
    }
}

/// One attribute: a key from the semantic conventions (``SpanAttribute/Key``) or the
/// gateway's own `open_market.*` names, and a value.
public struct SpanAttribute: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case string(String)
        case int(Int64)
        case bool(Bool)
    }

    public var key: String
    public var value: Value

    public init(_ key: String, _ value: Value) {
        self.key = key
        self.value = value
    }

    public init(_ key: String, _ value: String) { self.init(key, .string(value)) }
    public init(_ key: String, _ value: Int) { self.init(key, .int(Int64(value))) }
    public init(_ key: String, _ value: Bool) { self.init(key, .bool(value)) }
}

/// A link to a span of another request (a coalesced fetch another request started, or the
/// request that caused background work).
public struct SpanLink: Sendable, Equatable {
    public var traceID: String
    public var spanID: String
    public var traceState: String?

    public init(traceID: String, spanID: String, traceState: String? = nil) {
        self.traceID = traceID
        self.spanID = spanID
        self.traceState = traceState
    }
}
