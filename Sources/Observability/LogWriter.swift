import Foundation
import GatewayModels

/// Takes formatted log lines from any thread and writes them to a file handle (stderr by
/// default) from a background thread of its own, in batches, so an event loop never waits
/// on the log's pipe or disk.
///
/// Bounded: past `capacity` pending bytes, lines are dropped and counted, and the count is
/// reported in a later line. Lines at `error` or above wake the writer at once; the rest
/// are written within `interval`. The writer's thread lives as long as the process.
public final class LogWriter: Sendable {
    private struct Pending {
        var bytes: [UInt8] = []
        var dropped = 0
    }

    private let pending = Locked<Pending>(Pending())
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

    /// Queues one line (with its newline). Never blocks on I/O.
    public func write(_ line: String, urgent: Bool = false) {
        let accepted = pending.withLock { pending -> Bool in
            guard pending.bytes.count + line.utf8.count <= capacity else {
                pending.dropped += 1
                return false
            }
            pending.bytes.append(contentsOf: line.utf8)
            return true
        }
        if urgent && accepted { wake.signal() }
    }

    /// Queues one line that `append` writes (with its newline) straight into the buffer,
    /// under the writer's lock: no String made. A line that would pass the capacity is
    /// taken back and counted as dropped. Never blocks on I/O.
    package func write(urgent: Bool = false, _ append: (inout [UInt8]) -> Void) {
        let accepted = pending.withLock { pending -> Bool in
            let mark = pending.bytes.count
            append(&pending.bytes)
            guard pending.bytes.count <= capacity else {
                pending.bytes.removeSubrange(mark...)
                pending.dropped += 1
                return false
            }
            return true
        }
        if urgent && accepted { wake.signal() }
    }

    /// Writes everything queued so far before returning. For shutdown.
    public func flush() {
        drain()
    }

    private func run() {
        let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
        while true {
            _ = wake.wait(timeout: .now() + seconds)
            drain()
        }
    }

    private func drain() {
        let (bytes, dropped) = pending.withLock { pending -> ([UInt8], Int) in
            let taken = (pending.bytes, pending.dropped)
            pending.bytes = []
            pending.bytes.reserveCapacity(64 * 1024)
            pending.dropped = 0
            return taken
        }
        var data = Data(bytes)
        if dropped > 0 {
            data.append(contentsOf: "log-writer: dropped \(dropped) lines (over \(capacity) bytes pending)\n".utf8)
        }
        guard !data.isEmpty else { return }
        try? output.write(contentsOf: data)
    }
}
