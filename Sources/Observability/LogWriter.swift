import Foundation
import Synchronization
import GatewaySupport

/// Takes formatted log lines from any thread and writes them to a file handle (stderr by
/// default) from a background thread of its own, in batches, so an event loop never waits
/// on the log's pipe or disk.
///
/// Bounded: past `capacity` pending bytes, lines are dropped and counted, and the count is
/// reported in a later line. Lines at `error` or above wake the writer at once; the rest
/// are written within `interval` of the batch's first line. With nothing to write the
/// writer's thread sleeps until a line comes (an idle gateway does not wake for its log).
/// The thread lives as long as the process.
public final class LogWriter: Sendable {
    private struct Pending {
        var bytes: [UInt8] = []
        var dropped = 0
        /// An urgent line is queued: the writer drains without waiting out `interval`.
        var urgent = false
    }

    private let pending = Locked<Pending>(Pending())
    /// Lines dropped over capacity since the writer was made.
    private let droppedTotal = Atomic<Int>(0)
    /// Held while a batch is taken and written (``drain()``). A plain lock, not a
    /// `Locked<Void>`: ThreadSanitizer reported Swift's exclusivity check on the empty value
    /// as a race between two holders of the lock (the gateway's exit status was 66).
    private let writing = NSLock()
    private let wake = DispatchSemaphore(value: 0)
    private let output: FileHandle
    private let capacity: Int
    private let interval: Duration

    /// The process-wide writer to stderr.
    public static let standardError = LogWriter(output: .standardError)

    public init(output: FileHandle, capacity: Int = 8 << 20, interval: Duration = .milliseconds(50)) {
        self.output = output
        self.capacity = capacity
        self.interval = interval
        let thread = Thread { [self] in run() }
        thread.name = "gateway-log-writer"
        thread.start()
    }

    /// Lines dropped because `capacity` bytes were pending, since the writer was made. Any
    /// thread.
    public var droppedLines: Int { droppedTotal.load(ordering: .relaxed) }

    /// Queues one line (with its newline). Never blocks on I/O.
    public func write(_ line: String, urgent: Bool = false) {
        write(urgent: urgent) { $0.append(contentsOf: line.utf8) }
    }

    /// Queues one line that `append` writes (with its newline) straight into the buffer,
    /// under the writer's lock: no String made. A line that would pass the capacity is
    /// taken back and counted as dropped. Never blocks on I/O.
    package func write(urgent: Bool = false, _ append: (inout [UInt8]) -> Void) {
        // The writer sleeps until a batch starts: what makes something pending (a line, or the
        // count of one dropped, for the report) wakes it, and so does a batch's first urgent
        // line (the writer stops waiting out `interval`).
        let signal = pending.withLock { pending -> Bool in
            let mark = pending.bytes.count
            let wasEmpty = mark == 0 && pending.dropped == 0
            append(&pending.bytes)
            guard pending.bytes.count <= capacity else {
                pending.bytes.removeSubrange(mark...)
                pending.dropped += 1
                droppedTotal.add(1, ordering: .relaxed)
                return wasEmpty
            }
            let firstUrgent = urgent && !pending.urgent
            if urgent { pending.urgent = true }
            return wasEmpty || firstUrgent
        }
        if signal { wake.signal() }
    }

    /// Writes everything queued so far before returning, a batch the writer's thread took
    /// included. For shutdown.
    public func flush() {
        drain()
    }

    /// The writer's thread: sleeps until a batch starts, waits out `interval` for the rest of
    /// it (unless a line is urgent), writes it. A wake left over from a batch already written
    /// costs one empty turn, never a line.
    private func run() {
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        while true {
            wake.wait()
            if !pending.withLock({ $0.urgent }) {
                _ = wake.wait(timeout: .now() + seconds)
            }
            drain()
        }
    }

    /// Takes what is pending and writes it, holding `writing` throughout: a `flush()` while the
    /// writer's thread writes a batch waits for it (the process may exit right after), and
    /// batches reach the output in order.
    private func drain() {
        writing.lock()
        defer { writing.unlock() }
        writeOut(taking())
    }

    private func writeOut(_ taken: (bytes: [UInt8], dropped: Int)) {
        let (bytes, dropped) = taken
        var data = Data(bytes)
        if dropped > 0 {
            data.append(contentsOf: "log-writer: dropped \(dropped) lines (over \(capacity) bytes pending)\n".utf8)
        }
        guard !data.isEmpty else { return }
        try? output.write(contentsOf: data)
    }

    private func taking() -> (bytes: [UInt8], dropped: Int) {
        pending.withLock { pending -> ([UInt8], Int) in
            let taken = (pending.bytes, pending.dropped)
            pending.urgent = false
            guard !taken.0.isEmpty || taken.1 > 0 else { return taken }
            pending.bytes = []
            pending.bytes.reserveCapacity(64 * 1024)
            pending.dropped = 0
            return taken
        }
    }
}
