import Dispatch
import GatewayModels
import GatewaySupport

/// The threads that render images (and decode writes that carry them): CPU-heavy work that must
/// never run on an event loop.
///
/// Two queues of jobs, each first in first out, taken by at most `count` threads at once (so
/// at most `count` cores busy): a job waits only while every thread is busy, never behind a long
/// job while another thread idles. The background lane (placeholders) is taken only when no
/// ordinary job waits, so work nobody waits for never delays a client's render by more than the
/// background job already running. At most `maxWaiting` ordinary jobs and `maxBackground`
/// background jobs wait beyond those running; a job past that is refused at once (the caller
/// answers 503, or leaves the placeholder for later), so a burst cannot queue without bound.
/// Thread-safe.
final class ImageWorkers: Sendable {
    private struct State {
        var ordinary = FIFOQueue<@Sendable () -> Void>()
        var background = FIFOQueue<@Sendable () -> Void>()
        var running = 0
    }

    private let state = Locked(State())
    private let threads = DispatchQueue(label: "open-market-gateway.image-workers", qos: .utility, attributes: .concurrent)
    let count: Int
    let maxWaiting: Int
    let maxBackground: Int

    /// `maxBackground` defaults to 64, as many as renders may wait: each waiting job holds its
    /// source's bytes (up to `--max-image-bytes`), so this bounds their memory too.
    init(count: Int, maxWaiting: Int, maxBackground: Int = 64) {
        self.count = max(1, count)
        self.maxWaiting = maxWaiting
        self.maxBackground = maxBackground
    }

    /// Runs `job` on a worker thread; false, and nothing run, when the pool is full.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        enqueue(job, background: false)
    }

    /// Runs `job` on a worker thread once no ordinary job waits; false, and nothing run, when
    /// the background lane is full.
    func submitBackground(_ job: @escaping @Sendable () -> Void) -> Bool {
        enqueue(job, background: true)
    }

    /// Jobs waiting in the background lane (tests).
    var backgroundWaiting: Int { state.withLock { $0.background.count } }

    private func enqueue(_ job: @escaping @Sendable () -> Void, background: Bool) -> Bool {
        let (accepted, startsThread) = state.withLock { state -> (Bool, Bool) in
            if background {
                guard state.background.count < maxBackground else { return (false, false) }
                state.background.append(job)
            } else {
                guard state.ordinary.count < maxWaiting else { return (false, false) }
                state.ordinary.append(job)
            }
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
            if let job = state.ordinary.take() ?? state.background.take() { return job }
            state.running -= 1
            return nil
        }
    }
}
