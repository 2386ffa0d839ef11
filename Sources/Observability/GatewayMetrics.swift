import CoreMetrics
import Prometheus
import Synchronization
import GatewaySupport

/// The gateway's metrics, through swift-metrics into a Prometheus registry of its own (one
/// per server, so tests and embedded servers do not share counters).
///
/// What is here is what the layers below the application report: requests (through each
/// loop's `RequestMetrics`), origin exchanges and Redis failures. The application adds its
/// own (cache events, rate limits, renders, breakers, sign-in, …) in extensions in its
/// targets, on `counter`, `timer` and ``count(_:_:_:)``, whose counters it names up front
/// (`init(presets:)`) when a hot path counts them.
///
/// Thread-safe. Hot paths do not look metrics up here per request: each loop keeps its
/// handles in a `RequestMetrics`.
public final class GatewayMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    package let factory: PrometheusMetricsFactory
    /// The preset counters, made once at start: a lookup by static strings costs no
    /// allocation (making a counter does), and no lock.
    private let presets: [PresetKey: PresetCounter]
    /// Counters of ``count(_:_:_:)`` that were not preset, made on first use.
    private let others = Locked<[PresetKey: PresetCounter]>([:])
    /// What reads state into gauges just before each scrape (``onScrape(_:)``).
    private let scrapeHooks = Locked<[@Sendable () -> Void]>([])

    /// A family of counters made up front: `label` with two dimensions, for each value of the
    /// first every value of the second in `values`.
    public struct Preset: Sendable {
        public let label: String
        public let dimensions: (String, String)
        public let values: [(String, [String])]

        public init(label: String, dimensions: (String, String), values: [(String, [String])]) {
            self.label = label
            self.dimensions = dimensions
            self.values = values
        }
    }

    /// One counter of ``count(_:_:_:)`` and its tally, which can be read back (``countedSoFar(_:_:)``).
    private final class PresetCounter: Sendable {
        let counter: CoreMetrics.Counter
        let tally = Atomic<Int>(0)

        init(_ counter: CoreMetrics.Counter) {
            self.counter = counter
        }
    }

    private struct PresetKey: Hashable {
        let label: String
        let first: String
        let second: String
    }

    /// A registry with the counters of `presets` made (each at 0, so they show from the start).
    public init(presets: [Preset] = []) {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
            .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10),
        ]
        self.factory = factory
        var made: [PresetKey: PresetCounter] = [:]
        for preset in presets {
            for (first, seconds) in preset.values {
                for second in seconds {
                    made[PresetKey(label: preset.label, first: first, second: second)] = PresetCounter(
                        CoreMetrics.Counter(
                            label: preset.label, dimensions: [(preset.dimensions.0, first), (preset.dimensions.1, second)], factory: factory))
                }
            }
        }
        self.presets = made
    }

    package func counter(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Counter {
        CoreMetrics.Counter(label: label, dimensions: dimensions, factory: factory)
    }

    /// A counter of a quantity that is not whole (seconds).
    package func floatingCounter(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.FloatingPointCounter {
        CoreMetrics.FloatingPointCounter(label: label, dimensions: dimensions, factory: factory)
    }

    package func gauge(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Gauge {
        CoreMetrics.Gauge(label: label, dimensions: dimensions, factory: factory)
    }

    /// Makes the counters of `label` with `dimension` at each of `values` (and `fixed`), so
    /// they show at 0 from the start: a dashboard or an alert on a counter that has not
    /// counted yet then reads 0, not "no data".
    package func declareCounters(_ label: String, _ dimension: String, _ values: [String], fixed: [(String, String)] = []) {
        for value in values { _ = counter(label, fixed + [(dimension, value)]) }
    }

    /// Runs `hook` before every ``render()``, on the scraping thread: for gauges that read
    /// state kept elsewhere (open connections, a breaker's state, an age). `hook` must be
    /// quick and must not block.
    package func onScrape(_ hook: @escaping @Sendable () -> Void) {
        scrapeHooks.withLock { $0.append(hook) }
    }

    package func timer(_ label: String, _ dimensions: [(String, String)] = []) -> CoreMetrics.Timer {
        CoreMetrics.Timer(label: label, dimensions: dimensions, factory: factory)
    }

    /// Counts one on `label` with two dimensions (`(name, value)`): a preset counter without
    /// a lock or an allocation, another made once, under a lock, on first use.
    package func count(_ label: String, _ first: (String, String), _ second: (String, String)) {
        let counted = counter(label, first, second)
        counted.counter.increment()
        counted.tally.add(1, ordering: .relaxed)
    }

    /// How many were counted on `label` with these dimensions so far (by ``count(_:_:_:)``).
    package func countedSoFar(_ label: String, _ first: (String, String), _ second: (String, String)) -> Int {
        let key = PresetKey(label: label, first: first.1, second: second.1)
        if let preset = presets[key] { return preset.tally.load(ordering: .relaxed) }
        return others.withLock { $0[key] }?.tally.load(ordering: .relaxed) ?? 0
    }

    private func counter(_ label: String, _ first: (String, String), _ second: (String, String)) -> PresetCounter {
        let key = PresetKey(label: label, first: first.1, second: second.1)
        if let preset = presets[key] { return preset }
        return others.withLock { made in
            if let existing = made[key] { return existing }
            let counter = PresetCounter(CoreMetrics.Counter(label: label, dimensions: [first, second], factory: factory))
            made[key] = counter
            return counter
        }
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

    /// `gateway_log_lines_dropped_total`: lines `writer` dropped because its output could not
    /// keep up, brought up to date at each scrape.
    public func reportLogWriter(_ writer: LogWriter) {
        let counter = counter("gateway_log_lines_dropped_total")
        let reported = Locked(0)
        onScrape {
            let now = writer.droppedLines
            let new = reported.withLock { reported in
                defer { reported = max(reported, now) }
                return now - reported
            }
            if new > 0 { counter.increment(by: Int64(new)) }
        }
    }

    /// The Prometheus text exposition (format 0.0.4) of every metric.
    public func render() -> [UInt8] {
        for hook in scrapeHooks.withLock({ $0 }) { hook() }
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
