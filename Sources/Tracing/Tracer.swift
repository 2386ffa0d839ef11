import GatewaySupport

#if canImport(Glibc)
import Glibc
#endif

/// Tracing as the loops see it: the sampler's decision for each request, and finished spans
/// handed to the exporter's queue. Without tracing there is no tracer, and a request costs
/// nothing more.
///
/// Thread-safe: every loop uses the one tracer; `record` never blocks (a full queue drops).
public final class Tracer: Sendable {
    public let sampler: Sampler
    public let queue: SpanQueue
    /// Whether server spans carry `enduser.id`.
    public let recordsEndUser: Bool
    /// Called (from a loop) when a whole batch waits: the exporter's wake-up.
    private let wake: @Sendable () -> Void

    public init(sampler: Sampler, queue: SpanQueue, recordsEndUser: Bool = false, wake: @escaping @Sendable () -> Void) {
        self.sampler = sampler
        self.queue = queue
        self.recordsEndUser = recordsEndUser
        self.wake = wake
    }

    /// `context` (read from the request) with the sampler's decision in its flags, and a
    /// server span id when it is recorded.
    public func start(_ context: TraceContext) -> TraceContext {
        let parentSampled: Bool? = context.parentSpan == 0 ? nil : context.isSampled
        return context.deciding(sampled: sampler.shouldSample(parentSampled: parentSampled, traceIDLow: context.traceIDLow))
    }

    /// The decision for an answer from what is stored, from its `traceparent` bytes (nil:
    /// none), without making anything unless it is sampled: nil when it is not recorded.
    /// `context` makes the sampled request's context from the client's fields.
    public func startStored(traceparent: UnsafeRawBufferPointer?, context: () -> TraceContext) -> TraceContext? {
        if let traceparent, let peeked = TraceContext.peek(traceparent: traceparent) {
            guard sampler.shouldSample(parentSampled: peeked.sampled, traceIDLow: peeked.traceIDLow) else { return nil }
            return start(context())
        }
        let parts = TraceContext.newTraceIDParts()
        guard sampler.shouldSample(parentSampled: nil, traceIDLow: parts.low) else { return nil }
        return TraceContext.begin(traceIDParts: parts, sampled: true)
    }

    /// Queues a finished span for export; dropped (and counted) when the queue is full.
    public func record(_ span: SpanRecord) {
        wakeIfReady(queue.offer(.record(span)))
    }

    /// Queues the server span of a request answered now: its fields, and their text from the
    /// loop's `text`, copied into the queue's preallocated storage (``ServerSpanLog``);
    /// nothing is made on the loop.
    public func recordServer(_ fields: ServerSpanFields, text: ServerSpanText) {
        let end = Self.wallClockNanoseconds()
        wakeIfReady(queue.offerServer(fields, text: text, endNanoseconds: end, recordsEndUser: recordsEndUser))
    }

    private func wakeIfReady(_ offer: SpanQueue.Offer) {
        if offer == .batchReady { wake() }
    }

    /// Nanoseconds since the Unix epoch, now.
    public static func wallClockNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
