import GatewaySupport

/// Where the spans made on behalf of one recorded request, or of one piece of background
/// work, go: the tracer and the trace, whose `spanID` is the span they nest under. Exists only
/// for a recorded trace, so code that holds none records nothing and pays nothing.
public struct TraceScope: Sendable {
    public let tracer: Tracer
    public let trace: TraceContext

    /// Nil without a tracer or when `trace` is not recorded (has no span id).
    public init?(tracer: Tracer?, trace: TraceContext) {
        guard let tracer, trace.isRecorded else { return nil }
        self.tracer = tracer
        self.trace = trace
    }

    /// A link to this scope's span (for work that another request's scope started).
    public var link: SpanLink { SpanLink(traceID: trace.traceID, spanID: trace.spanID ?? "", traceState: trace.state) }

    /// Queues an INTERNAL span `name`, a child of this scope's span, ended now after
    /// `elapsed`, with `attributes`; `failure`, when the work failed, is its `error.type` and
    /// makes the span an error. Any thread; never blocks.
    public func recordInternal(
        _ name: String, elapsed: Duration, attributes: [SpanAttribute] = [], failure: String? = nil, links: [SpanLink] = []
    ) {
        record(name, kind: .internalWork, elapsed: elapsed, attributes: attributes, failure: failure, links: links)
    }

    private func record(
        _ name: String, kind: SpanRecord.Kind, elapsed: Duration, attributes: [SpanAttribute], failure: String?, links: [SpanLink]
    ) {
        guard let parent = trace.spanID else { return }
        queue(name, kind: kind, spanID: TraceContext.newSpanID(), parent: parent, elapsed: elapsed, attributes: attributes, failure: failure, links: links)
    }

    /// Queues span `spanID` of this scope's trace, under `parent` (nil: the trace's root),
    /// ended now after `elapsed`; `failure` is its `error.type` and makes it an error.
    fileprivate func queue(
        _ name: String, kind: SpanRecord.Kind, spanID: String, parent: String?, elapsed: Duration, attributes: [SpanAttribute], failure: String?,
        links: [SpanLink]
    ) {
        let end = Tracer.wallClockNanoseconds()
        var attributes = attributes
        var status = SpanRecord.Status.unset
        if let failure {
            attributes.append(SpanAttribute(SemanticConventions.errorType, failure))
            status = .error(failure)
        }
        tracer.record(SpanRecord(
            traceID: trace.traceID, spanID: spanID, parentSpanID: parent, traceState: parent == nil ? nil : trace.state, name: name,
            kind: kind, startNanoseconds: SpanRecord.start(endingAt: end, after: elapsed), endNanoseconds: end, status: status,
            attributes: attributes, links: links))
    }

    /// Queues a CLIENT span `name`, a child of this scope's span, ended now after `elapsed`
    /// (a command to Redis); `failure` as for ``recordInternal(_:elapsed:attributes:failure:links:)``.
    public func recordClient(_ name: String, elapsed: Duration, attributes: [SpanAttribute], failure: String? = nil) {
        record(name, kind: .client, elapsed: elapsed, attributes: attributes, failure: failure, links: [])
    }

    /// Background work this scope's request caused (a prefetch, a refresh): a trace of its
    /// own, recorded because its cause was, whose root span (``BackgroundTrace/end(_:attributes:failure:)``)
    /// links here. Work done for it (origin requests) goes in `.scope`.
    public func background() -> BackgroundTrace {
        let trace = TraceContext.begin(traceIDParts: TraceContext.newTraceIDParts(), sampled: true)
        return BackgroundTrace(scope: TraceScope(checked: tracer, trace: trace), cause: link, started: .now)
    }

    init(checked tracer: Tracer, trace: TraceContext) {
        self.tracer = tracer
        self.trace = trace
    }
}

/// A trace begun for background work (``TraceScope/background()``): its root span is recorded
/// by ``end(_:attributes:failure:)``, once, when the work ends.
public struct BackgroundTrace: Sendable {
    /// Where the work's own spans go (their parent is the root span).
    public let scope: TraceScope
    /// The request that caused the work; nil for work nothing asked for (a timer's).
    public let cause: SpanLink?
    let started: ContinuousClock.Instant

    init(scope: TraceScope, cause: SpanLink?, started: ContinuousClock.Instant) {
        self.scope = scope
        self.cause = cause
        self.started = started
    }

    /// A trace for work of the gateway's own (a key set's load): recorded when `cause` (a
    /// recorded request that asked for it) is given, else when the sampler keeps a new trace.
    /// Nil without a tracer or when not recorded.
    public static func begin(tracer: Tracer?, cause: SpanLink?) -> BackgroundTrace? {
        guard let tracer else { return nil }
        let parts = TraceContext.newTraceIDParts()
        guard cause != nil || tracer.sampler.shouldSample(parentSampled: nil, traceIDLow: parts.low) else { return nil }
        let trace = TraceContext.begin(traceIDParts: parts, sampled: true)
        return BackgroundTrace(scope: TraceScope(checked: tracer, trace: trace), cause: cause, started: .now)
    }

    /// Queues the root span `name` (INTERNAL, no parent, linked to the cause if any), from
    /// when the trace began until now.
    public func end(_ name: String, attributes: [SpanAttribute] = [], failure: String? = nil) {
        scope.queue(
            name, kind: .internalWork, spanID: scope.trace.spanID ?? TraceContext.newSpanID(), parent: nil, elapsed: .now - started,
            attributes: attributes, failure: failure, links: cause.map { [$0] } ?? [])
    }
}
