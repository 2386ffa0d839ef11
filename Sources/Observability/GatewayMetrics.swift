import CoreMetrics
import Prometheus
import Synchronization

/// The gateway's metrics, through swift-metrics into a Prometheus registry of its own (one
/// per server, so tests and embedded servers do not share counters).
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

    /// Counts one request refused with 429 by `policy` (`reads`, `writes`, `images`) on
    /// `route` (its pattern).
    package func rateLimited(route: String, policy: String) {
        counter("gateway_rate_limited_total", [("route", route), ("policy", policy)]).increment()
    }

    /// Whether the per-client budgets are shared with the other replicas now (1) or kept per
    /// process because Redis could not be reached (0).
    package func rateLimitShared(_ shared: Bool) {
        CoreMetrics.Gauge(label: "gateway_rate_limit_shared", factory: factory).record(shared ? 1 : 0)
    }

    /// How long one read of the shared page tier took (the Redis round trip).
    package func sharedTierLatency(_ duration: Duration) {
        timer("gateway_shared_cache_read_duration_seconds").recordNanoseconds(duration.nanoseconds)
    }

    /// Counts one Redis command that got no answer: `reason` is `timeout`, `connection_lost`,
    /// `unavailable` or `refused`.
    package func redisFailure(_ reason: String) {
        counter("gateway_redis_failures_total", [("reason", reason)]).increment()
    }

    /// Counts one image render: `format` written, `outcome` `ok`, `too_many_pixels`,
    /// `timed_out`, `failed` or `busy` (refused: every worker busy); times the ones that ran.
    package func imageRender(format: String, outcome: String, duration: Duration?) {
        counter("gateway_image_renders_total", [("format", format), ("outcome", outcome)]).increment()
        if let duration {
            timer("gateway_image_render_duration_seconds", [("format", format)]).recordNanoseconds(duration.nanoseconds)
        }
    }

    /// Counts one background fetch of `kind` (`page`, `thumbnail`, `detail`): `outcome` is
    /// `made`, `skipped_full`, `skipped_origin_failing`, `used` (a client read what it
    /// fetched) or `wasted` (it left the cache unread).
    package func prefetch(_ kind: String, outcome: String) {
        counter("gateway_prefetches_total", [("kind", kind), ("outcome", outcome)]).increment()
    }

    /// Counts placeholders in answers to `include=placeholders`: `outcome` `ready` (in the
    /// answer) or `missing` (null: pending or failed); and answers that `waited` for some.
    package func placeholders(_ outcome: String, count: Int = 1) {
        guard count > 0 else { return }
        counter("gateway_placeholders_total", [("outcome", outcome)]).increment(by: Int64(count))
    }

    /// Counts one reload of the process's files: `files` names them (`tls`), `outcome` is `ok`
    /// or `failed` (the files in use stay).
    /// Counts an origin fetch that failed and put its key in backoff (`started`), or one not
    /// sent because its key was backing off (`held`).
    package func originBackoff(_ outcome: String) {
        counter("gateway_origin_backoff_total", [("outcome", outcome)]).increment()
    }

    /// Counts a change of the origin's circuit breaker (`to`: `open`, `half-open`, `closed`).
    package func originBreakerTransition(to state: String) {
        counter("gateway_origin_breaker_transitions_total", [("to", state)]).increment()
    }

    /// Counts a change of an image host's circuit breaker (`to`: `open`, `half-open`,
    /// `closed`); hosts are in the log, not in labels.
    package func imageHostBreakerTransition(to state: String) {
        counter("gateway_image_host_breaker_transitions_total", [("to", state)]).increment()
    }

    /// Counts a request not sent because the origin's breaker was open (`kind`: `read` or
    /// `write`).
    package func originBreakerRefused(_ kind: String) {
        counter("gateway_origin_breaker_refused_total", [("kind", kind)]).increment()
    }

    package func fileReload(files: String, outcome: String) {
        counter("gateway_reloads_total", [("files", files), ("outcome", outcome)]).increment()
    }

    /// Counts one failed load of the identity provider's key set (the last good one stays).
    package func authKeySetFailure() {
        counter("gateway_auth_key_set_failures_total", []).increment()
    }

    /// Counts one bearer token judged from its bytes (not from memory): `outcome` is
    /// `verified` or a rejection's reason (`expired`, `bad_signature`, …).
    package func authToken(outcome: String) {
        counter("gateway_auth_tokens_total", [("outcome", outcome)]).increment()
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
