import Dispatch
import GatewayModels

/// The threads that render images: CPU-heavy work that must never run on an event loop.
///
/// `count` serial queues (one render at a time each, so at most `count` cores busy), a job
/// going to the queue with the fewest; at most `maxWaiting` jobs wait beyond those running,
/// and a job past that is refused at once (the caller answers 503), so a burst of new
/// variants cannot queue without bound. Thread-safe.
final class ImageWorkers: Sendable {
    private let queues: [DispatchQueue]
    /// Jobs queued or running, per queue.
    private let pending: Locked<[Int]>
    let maxWaiting: Int

    init(count: Int, maxWaiting: Int) {
        let count = max(1, count)
        queues = (0..<count).map { DispatchQueue(label: "open-market-gateway.image-worker-\($0)", qos: .utility) }
        pending = Locked([Int](repeating: 0, count: count))
        self.maxWaiting = maxWaiting
    }

    /// Runs `job` on a worker thread; false, and nothing run, when the pool is full.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let index: Int? = pending.withLock { pending in
            guard pending.reduce(0, +) < queues.count + maxWaiting,
                let index = pending.indices.min(by: { pending[$0] < pending[$1] })
            else { return nil }
            pending[index] += 1
            return index
        }
        guard let index else { return false }
        queues[index].async { [self] in
            job()
            pending.withLock { $0[index] -= 1 }
        }
        return true
    }

    /// Jobs queued or running.
    var load: Int { pending.withLock { $0.reduce(0, +) } }
}
