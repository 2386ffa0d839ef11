import GatewayModels
import Observability
import GatewaySupport

/// Sources the prefetch lane fetched for a list's thumbnails (or a read's placeholders), until a
/// client's render reads one (`gateway_prefetches_total{kind="image",outcome="used"}`) or
/// ``unusedAfter`` passes without one (`wasted`, counted when the set is next swept). At most
/// ``capacity`` URLs; past that the oldest count as wasted (down to three quarters of it). Thread-safe.
final class FetchedAheadSources: Sendable {
    static let capacity = 4096
    static let unusedAfter: Duration = .seconds(600)

    private let fetched = Locked<[String: ContinuousClock.Instant]>([:])
    private let metrics: GatewayMetrics

    init(metrics: GatewayMetrics) {
        self.metrics = metrics
    }

    /// The lane fetched `url`'s source.
    func remember(_ url: String, now: ContinuousClock.Instant = .now) {
        let wasted = fetched.withLock { table -> Int in
            table[url] = now
            guard table.count > Self.capacity else { return 0 }
            let before = table.count
            // Swept when full: the old ones, then the oldest down to three quarters, so a
            // sweep (a sort of the table) comes once per thousand URLs at most.
            table = table.filter { now - $0.value < Self.unusedAfter }
            if table.count > Self.capacity * 3 / 4 {
                for (url, _) in table.sorted(by: { $0.value < $1.value }).prefix(table.count - Self.capacity * 3 / 4) {
                    table.removeValue(forKey: url)
                }
            }
            return before - table.count
        }
        for _ in 0..<wasted { metrics.prefetch(PrefetchLane.Kind.image.rawValue, outcome: "wasted") }
    }

    /// A client's render needs `url`'s source: counted as used when the lane fetched it.
    func used(_ url: String, now: ContinuousClock.Instant = .now) {
        let outcome = fetched.withLock { table -> String? in
            guard let at = table.removeValue(forKey: url) else { return nil }
            return now - at < Self.unusedAfter ? "used" : "wasted"
        }
        if let outcome { metrics.prefetch(PrefetchLane.Kind.image.rawValue, outcome: outcome) }
    }

    var count: Int { fetched.withLock { $0.count } }
}
