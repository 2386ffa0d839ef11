import Dispatch
import GatewayModels
import HTTPInterface
import Observability
import GatewaySupport

/// The process's background origin work: the next list page, the sources and placeholders of
/// a list's thumbnails (and of images whose placeholders a read asks for), details before the
/// tap. One lane shared by every loop, so one cap bounds all of it against amplification.
///
/// At most ``concurrency`` jobs run at once: half of `--origin-max-connections`, so however
/// busy the lane, at least half of each loop's origin connections stay for clients' misses. At
/// most ``maxQueued`` more wait; beyond that a job is refused (its work is left for a later
/// read). Waiting pages and details go before waiting images (one JSON request each, and what
/// the next scroll or tap needs, against a page's dozens of thumbnails), each kind first in
/// first out. Nothing is admitted while the origin is failing: for
/// ``failurePause`` after any failed origin fetch (a success in between does not end it: an
/// origin answering some requests with 503 is struggling, and prefetches are what can wait).
/// Image hosts' failures are remembered per URL instead (``ImagePlaceholders``). Deduplication is the
/// submitters': each asks its coalescer (one fetch or preparation per key) before it submits,
/// and checks again when its job starts. Thread-safe.
final class PrefetchLane: Sendable {
    /// What a job fetches, for metrics (`gateway_prefetches_total{kind}`).
    enum Kind: String, Sendable, CaseIterable {
        case page
        case image
        case detail
    }

    /// A job: does its work and calls `done` when it ends (on any thread; calls after the
    /// first are ignored), which lets the next job start.
    typealias Job = @Sendable (_ done: @escaping @Sendable () -> Void) -> Void

    private struct State {
        /// Pages and details.
        var json = FIFOQueue<Job>()
        var images = FIFOQueue<Job>()
        var running = 0
        var failedAt: ContinuousClock.Instant?
    }

    private let state = Locked(State())
    let concurrency: Int
    let maxQueued: Int
    private let metrics: GatewayMetrics
    /// How long after an origin failure nothing new is admitted (unless a fetch succeeds).
    static let failurePause: Duration = .seconds(10)

    /// - Parameter originConnections: `--origin-max-connections` (per loop); the lane runs at
    ///   most half of it (at least one). Its default is the flag's.
    init(originConnections: Int = OriginClientConfiguration().maxConnectionsPerLoop, maxQueued: Int = 256, metrics: GatewayMetrics) {
        concurrency = max(1, originConnections / 2)
        self.maxQueued = maxQueued
        self.metrics = metrics
    }

    /// Why a job was not admitted.
    enum Refusal: String, Sendable {
        /// ``maxQueued`` jobs wait already.
        case full
        /// The origin failed a moment ago.
        case originFailing = "origin_failing"
    }

    /// Admits `job`: it runs now (on the calling thread) when fewer than ``concurrency`` run,
    /// else when its turn comes (on the thread whose job ended). Returns the refusal, and
    /// runs nothing, when the queue is full or the origin is failing; counts both in
    /// `gateway_prefetches_total`.
    @discardableResult
    func submit(_ kind: Kind, now: ContinuousClock.Instant = .now, _ job: @escaping Job) -> Refusal? {
        let admitted = state.withLock { state -> Result<Bool, RefusalError> in
            if let failedAt = state.failedAt {
                if now - failedAt < Self.failurePause { return .failure(RefusalError(refusal: .originFailing)) }
                state.failedAt = nil
            }
            if state.running < concurrency {
                state.running += 1
                return .success(true)
            }
            guard state.json.count + state.images.count < maxQueued else { return .failure(RefusalError(refusal: .full)) }
            if kind == .image { state.images.append(job) } else { state.json.append(job) }
            return .success(false)
        }
        switch admitted {
        case .failure(let error):
            metrics.prefetch(kind.rawValue, outcome: "skipped_" + error.refusal.rawValue)
            return error.refusal
        case .success(let runsNow):
            metrics.prefetch(kind.rawValue, outcome: "made")
            if runsNow { run(job) }
            return nil
        }
    }

    private struct RefusalError: Error {
        var refusal: Refusal
    }

    /// An origin fetch failed (5xx, timeout, connection error, unreadable answer): nothing new
    /// is admitted for ``failurePause``. Jobs already queued still run (at most ``maxQueued``;
    /// each page or detail among them meets the failing origin once).
    func originFailed(now: ContinuousClock.Instant = .now) {
        state.withLock { $0.failedAt = now }
    }

    /// Jobs running and waiting (tests).
    var load: (running: Int, queued: Int) { state.withLock { ($0.running, $0.json.count + $0.images.count) } }

    private func run(_ job: @escaping Job) {
        let ended = OnceFlag()
        job { [self] in
            guard ended.claim() else { return }
            jobEnded()
        }
    }

    /// One job ended: the next waiting one starts on this thread (a global queue's, so a
    /// loop that ended a job does not run the next one's first steps).
    private func jobEnded() {
        let next = state.withLock { state -> Job? in
            if let job = state.json.take() ?? state.images.take() { return job }
            state.running -= 1
            return nil
        }
        if let next { DispatchQueue.global().async { [self] in run(next) } }
    }
}
