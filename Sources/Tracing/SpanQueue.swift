import GatewaySupport
import Synchronization

/// A finished span as the exporter takes it: a whole ``SpanRecord`` (a client or internal
/// span), or a request's server span as its loop wrote it (``ServerSpanLog``), read back as
/// its fields (``HTTPServerSpan/Finished``) and encoded on the exporter's thread.
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
/// exporter takes all that waits at once (``drain(into:)``) and sends it in
/// batches, so at most twice `capacity` spans are held: those waiting here, and those taken.
///
/// Server spans, one per recorded request, go into preallocated storage (``ServerSpanLog``,
/// a byte buffer that a spare one replaces at each take): recording one copies
/// its bytes and allocates nothing. Its bytes are bounded too (`capacity` × 8 KiB).
///
/// Thread-safe (one lock, held for an append or a take); loops offer, the exporter's thread
/// takes.
public final class SpanQueue: Sendable {
    public let capacity: Int
    /// The exporter is woken when this many spans wait (`OTEL_BSP_MAX_EXPORT_BATCH_SIZE`).
    public let batchSize: Int

    private struct State {
        var spans: [QueuedSpan] = []
        var serverLog: ServerSpanLog
        /// Whether a wake-up for a full batch is pending (one per batch, not one per span).
        var wakePending = false

        var count: Int { spans.count + serverLog.count }
    }

    /// The most bytes the server-span storage may hold.
    private let serverLogLimit: Int
    /// The server-span storage that replaces the queue's at each take.
    private let spare: Locked<ServerSpanLog>

    /// `Locked` (a pthread mutex), not `Mutex`: ThreadSanitizer cannot see the futex lock.
    private let state: Locked<State>
    private let droppedCount = Atomic<UInt64>(0)

    public init(capacity: Int, batchSize: Int) {
        self.capacity = capacity
        self.batchSize = min(batchSize, capacity)
        serverLogLimit = capacity * 8192
        // Reserved for a typical span's 150 to 300 bytes.
        state = Locked(State(serverLog: ServerSpanLog(reservingBytes: capacity * 256)))
        spare = Locked(ServerSpanLog(reservingBytes: capacity * 256))
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
            guard state.count < capacity else { return .dropped }
            state.spans.append(span)
            return Self.afterAppend(&state, batchSize: batchSize)
        }
        if offer == .dropped { droppedCount.add(1, ordering: .relaxed) }
        return offer
    }

    /// Queues a server span, copied (with its text, from `text`) into the preallocated
    /// storage.
    public func offerServer(_ fields: ServerSpanFields, text: ServerSpanText, endNanoseconds: UInt64, recordsEndUser: Bool) -> Offer {
        let offer: Offer = text.withBytes { text in
            state.withLock { state in
                guard state.count < capacity, state.serverLog.bytes.count < serverLogLimit else { return .dropped }
                state.serverLog.append(fields, text: text, endNanoseconds: endNanoseconds, recordsEndUser: recordsEndUser)
                return Self.afterAppend(&state, batchSize: batchSize)
            }
        }
        if offer == .dropped { droppedCount.add(1, ordering: .relaxed) }
        return offer
    }

    private static func afterAppend(_ state: inout State, batchSize: Int) -> Offer {
        guard state.count >= batchSize, !state.wakePending else { return .queued }
        state.wakePending = true
        return .batchReady
    }

    /// Moves every waiting span into `buffer` (which must be empty): the records oldest
    /// first, then the server spans, read back from their bytes. The arrays trade places, and
    /// the server spans' storage trades places with a spare kept for it, so the queue's lock
    /// is held for no copy at all and nothing is allocated under it. The exporter's thread
    /// only (the spare has a lock of its own, always taken before the queue's).
    public func drain(into buffer: inout [QueuedSpan]) {
        precondition(buffer.isEmpty, "SpanQueue.drain into a buffer still holding spans")
        spare.withLock { spare in
            state.withLock { state in
                state.wakePending = false
                swap(&state.spans, &buffer)
                swap(&state.serverLog, &spare)
            }
            for span in ServerSpanLog.spans(in: spare.bytes) { buffer.append(.server(span)) }
            spare.removeAll()
        }
    }

    public var count: Int { state.withLock { $0.count } }

    /// Spans dropped because the queue was full, since the start.
    public var dropped: UInt64 { droppedCount.load(ordering: .relaxed) }
}
