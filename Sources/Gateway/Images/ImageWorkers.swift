import Dispatch
import GatewayModels

/// The threads that render images (and decode writes that carry them): CPU-heavy work that must
/// never run on an event loop.
///
/// One queue of jobs, first in first out, taken by at most `count` threads at once (so at most
/// `count` cores busy): a job waits only while every thread is busy, never behind a long job
/// while another thread idles. At most `maxWaiting` jobs wait beyond those running; a job past
/// that is refused at once (the caller answers 503), so a burst of new variants cannot queue
/// without bound. Thread-safe.
final class ImageWorkers: Sendable {
    private struct State {
        var waiting: [@Sendable () -> Void] = []
        var head = 0
        var running = 0
    }

    private let state = Locked(State())
    private let threads = DispatchQueue(label: "open-market-gateway.image-workers", qos: .utility, attributes: .concurrent)
    let count: Int
    let maxWaiting: Int

    init(count: Int, maxWaiting: Int) {
        self.count = max(1, count)
        self.maxWaiting = maxWaiting
    }

    /// Runs `job` on a worker thread; false, and nothing run, when the pool is full.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let (accepted, startsThread) = state.withLock { state -> (Bool, Bool) in
            guard state.waiting.count - state.head < maxWaiting else { return (false, false) }
            state.waiting.append(job)
            guard state.running < count else { return (true, false) }
            state.running += 1
            return (true, true)
        }
        if startsThread { threads.async { [self] in drain() } }
        return accepted
    }

    /// Runs jobs until none waits, then lets the thread go.
    private func drain() {
        while let job = next() { job() }
    }

    private func next() -> (@Sendable () -> Void)? {
        state.withLock { state in
            guard state.head < state.waiting.count else {
                state.waiting.removeAll(keepingCapacity: true)
                state.head = 0
                state.running -= 1
                return nil
            }
            let job = state.waiting[state.head]
            state.head += 1
            if state.head > 1024 {
                state.waiting.removeFirst(state.head)
                state.head = 0
            }
            return job
        }
    }
}
