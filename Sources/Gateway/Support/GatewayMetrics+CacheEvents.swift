import Observability

/// The caches' events, `gateway_cache_events_total{cache, event}`: counted on every request
/// (a hit counts one), so their counters are made when the registry is
/// (``gatewayPresets``), and read back for `GET /admin/cache`.
extension GatewayMetrics {
    static let cacheEventsLabel = "gateway_cache_events_total"

    /// The counters this application counts on hot paths, for `GatewayMetrics(presets:)`: each
    /// cache's events (the shared page tier's as `page_shared`), at 0 from the start.
    public static let gatewayPresets = [
        Preset(
            label: cacheEventsLabel, dimensions: ("cache", "event"),
            values: [
                ("page", ["hit", "stale", "miss", "expired", "revalidate_after_gap", "stale_if_error", "eviction", "prefetch"]),
                ("image_memory", ["hit", "miss", "eviction"]),
                ("image_disk", ["hit", "miss", "eviction"]),
                ("page_shared", ["hit", "hit_after_wait", "stale", "miss", "error", "refresh_deferred"]),
            ])
    ]

    /// Counts one event (`hit`, `miss`, `stale`, `eviction`, …) of `cache`. Thread-safe; a
    /// preset one allocates nothing.
    package func cacheEvent(_ event: String, cache: String) {
        count(Self.cacheEventsLabel, ("cache", cache), ("event", event))
    }

    /// How many `event`s of `cache` were counted so far.
    package func cacheEventCount(_ event: String, cache: String) -> Int {
        countedSoFar(Self.cacheEventsLabel, ("cache", cache), ("event", event))
    }
}
