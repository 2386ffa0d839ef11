import GatewaySupport
import Synchronization

/// A finished span as a loop queues it: a whole ``SpanRecord``, or a request's server span
/// as the few values its loop already held (``HTTPServerSpan/Finished``), made into a record
/// (attributes, name) on the exporter's thread, not the loop's.
public enum QueuedSpan: Sendable {
    case record(SpanRecord)
    case server(HTTPServerSpan.Finished)

    /// The span as it is exported.
    public var record: SpanRecord {
        switch self {
        case .record(let record): record
        case .server(let finished): finished.record
        }
    }
}

/// The batch processor's queue: finished spans from every loop, waiting for the exporter.
/// Bounded: a span offered to a full queue is dropped and counted, never waited for. The
/// exporter takes all that waits at once (``drain(into:)``) and sends it in batches, so at
/// most twice `capacity` spans are held: those waiting here, and those taken.
///
/// Thread-safe (one lock, held for an append or a take); loops offer, the exporter's thread
/// takes.
public final class SpanQueue: Sendable {
    public let capacity: Int
    /// The exporter is woken when this many spans wait (`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`).
    public let batchSize: Int

    private struct State {
        var spans: [QueuedSpan] = []
        /// Whether a wake-up for a full batch is pending (one per batch, not one per span).
        var wakePending = false
    }

    /// `Locked` (a pthread mutex), not `Mutex`: ThreadSanitizer cannot see the futex lock.
    private let state: Locked<State>
    private let droppedCount = Atomic<UInt64>(0)

    public init(capacity: Int, batchSize: Int) {
        self.capacity = capacity
        self.batchSize = min(batchSize, capacity)
        state = Locked(State())
    }

    public enum Offer: Equatable, Sendable {
        case queued
        /// Queued, and a whole batch waits now: wake the exporter.
        case batchReady
        /// The queue was full: the span is gone (counted in ``dropped``).
        case dropped
    }

    public func offer(_ span: QueuedSpan) -> Offer {
        let offer: Offer = state.withLock { state in
            guard state.spans.count < capacity else { return .dropped }
            state.spans.append(span)
            guard state.spans.count >= batchSize, !state.wakePending else { return .queued }
            state.wakePending = true
            return .batchReady
        }
        if offer == .dropped { droppedCount.add(1, ordering: .relaxed) }
        return offer
    }

    /// Moves every waiting span, oldest first, into `buffer` (which must be empty): the two
    /// arrays trade places, so the lock is held for no copy at all, and `buffer`'s storage
    /// (kept by the exporter between batches) becomes the queue's.
    public func drain(into buffer: inout [QueuedSpan]) {
        precondition(buffer.isEmpty, "SpanQueue.drain into a buffer still holding spans")
        state.withLock { state in
            state.wakePending = false
            swap(&state.spans, &buffer)
        }
    }

    public var count: Int { state.withLock { $0.spans.count } }

    /// Spans dropped because the queue was full, since the start.
    public var dropped: UInt64 { droppedCount.load(ordering: .relaxed) }
}
