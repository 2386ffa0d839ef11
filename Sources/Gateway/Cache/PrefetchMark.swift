import Observability
import Synchronization

/// Carried by a page the prefetch lane stored (the next list page, a detail before the tap):
/// the first client read of it counts it `used`; a page that leaves the cache (evicted,
/// replaced, purged) without one counts `wasted`, when its last copy goes. Thread-safe.
public final class PrefetchMark: Sendable, Equatable {
    private let read = Atomic<Bool>(false)
    private let kind: String
    private let metrics: GatewayMetrics

    init(kind: String, metrics: GatewayMetrics) {
        self.kind = kind
        self.metrics = metrics
    }

    /// A client read the page: counted once.
    func used() {
        guard !read.load(ordering: .relaxed), !read.exchange(true, ordering: .relaxed) else { return }
        metrics.prefetch(kind, outcome: "used")
    }

    deinit {
        if !read.load(ordering: .relaxed) { metrics.prefetch(kind, outcome: "wasted") }
    }

    public static func == (lhs: PrefetchMark, rhs: PrefetchMark) -> Bool { lhs === rhs }
}
