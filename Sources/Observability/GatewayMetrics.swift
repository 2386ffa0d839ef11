import CoreMetrics
import Prometheus
import Synchronization

/// The gateway's metrics, through swift-metrics into a Prometheus registry of its own (one
/// per server, so tests and embedded servers do not share counters).
///
/// What is here is what the layers below the application report: requests (through each
/// loop's `RequestMetrics`), origin exchanges, Redis failures, and the cache events whose
/// counters are made once because hits count them. The application adds its own
/// (rate limits, renders, breakers, sign-in, …) in extensions in its targets, on `counter`
/// and `timer`.
///
/// Thread-safe. Hot paths do not look metrics up here per request: each loop keeps its
/// handles in a `RequestMetrics`.
public final class GatewayMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    package let factory: PrometheusMetricsFactory
    /// Cache event counters of the caches read on every request, made once (a lookup by
    /// two static strings costs no allocation; making a counter does).
    private let cacheEvents: [CacheEvent: CoreMetrics.Counter]
    /// The same events counted again where they can be read back (`GET /admin/cache`).
    private let cacheTallies: [CacheEvent: Tally]
    package static let pageCacheEventNames = ["hit", "stale", "miss", "expired", "stale_if_error", "eviction", "prefetch"]
    package static let imageCacheEventNames = ["hit", "miss", "eviction"]
    package static let sharedPageEventNames = ["hit", "hit_after_wait", "stale", "miss", "error", "refresh_deferred"]

    private final class Tally: Sendable {
        let count = Atomic<Int>(0)
    }

    private struct CacheEvent: Hashable {
        let cache: String
        let event: String
    }

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
            .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10),
        ]
        self.factory = factory
        var events: [CacheEvent: CoreMetrics.Counter] = [:]
        var tallies: [CacheEvent: Tally] = [:]
        let kinds = [
            ("page", Self.pageCacheEventNames), ("image_memory", Self.imageCacheEventNames), ("image_disk", Self.imageCacheEventNames),
            ("page_shared", Self.sharedPageEventNames),
        ]
        for (cache, names) in kinds {
            for event in names {
                events[CacheEvent(cache: cache, event: event)] = CoreMetrics.Counter(
                    label: "gateway_cache_events_total", dimensions: [("cache", cache), ("event", event)], factory: factory)
                tallies[CacheEvent(cache: cache, event: event)] = Tally()
            }
        }
        cacheEvents = events
        cacheTallies = tallies
    }

    package func counter(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: label, dimensions: dimensions, factory: factory)
    }

    package func timer(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Timer {
        CoreMetrics.Timer(label: label, dimensions: dimensions, factory: factory)
    }

    /// Counts one cache event (`hit`, `miss`, `stale`, `eviction`, …) of `cache`.
    public func cacheEvent(_ event: String, cache: String) {
        let key = CacheEvent(cache: cache, event: event)
        if let counter = cacheEvents[key] {
            counter.increment()
            cacheTallies[key]?.count.add(1, ordering: .relaxed)
        } else {
            counter("gateway_cache_events_total", [("cache", cache), ("event", event)]).increment()
        }
    }

    /// How many `event`s of `cache` were counted (the events made at start only).
    package func cacheEventCount(_ event: String, cache: String) -> Int {
        cacheTallies[CacheEvent(cache: cache, event: event)]?.count.load(ordering: .relaxed) ?? 0
    }

    /// Counts one request to the origin: `outcome` is the status code or the failure's
    /// kind (`timeout`, `connect_failed`, …).
    package func originRequest(outcome: String, duration: Duration) {
        counter("gateway_origin_requests_total", [("outcome", outcome)]).increment()
        timer("gateway_origin_request_duration_seconds").recordNanoseconds(duration.nanoseconds)
    }

    /// Counts one Redis command that got no answer: `reason` is `timeout`, `connection_lost`,
    /// `unavailable` or `refused`.
    package func redisFailure(_ reason: String) {
        counter("gateway_redis_failures_total", [("reason", reason)]).increment()
    }

    /// The Prometheus text exposition (format 0.0.4) of every metric.
    public func render() -> [UInt8] {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(16 * 1024)
        registry.emit(into: &buffer)
        return buffer
    }
}

extension Duration {
    /// The whole nanoseconds in this duration.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
