import Gateway
import Observability
import Testing

/// Counters counted through `GatewayMetrics.count` (the cache events): preset ones show at 0
/// from the start; others are made on first use; both read back what was counted.
@Suite struct PresetCountersTests {
    private func lines(_ metrics: GatewayMetrics) -> Set<String> {
        Set(String(decoding: metrics.render(), as: UTF8.self).split(separator: "\n").map(String.init))
    }

    @Test func presetCountersShowFromTheStart() {
        let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
        let shown = lines(metrics)
        #expect(shown.contains(#"gateway_cache_events_total{cache="page",event="hit"} 0"#))
        #expect(shown.contains(#"gateway_cache_events_total{cache="page_shared",event="refresh_deferred"} 0"#))
        #expect(shown.contains(#"gateway_cache_events_total{cache="image_disk",event="eviction"} 0"#))
        #expect(metrics.cacheEventCount("hit", cache: "page") == 0)
    }

    @Test func presetAndLaterCountersCountAndReadBack() {
        let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
        for _ in 0..<3 { metrics.cacheEvent("hit", cache: "page") }
        // Not preset: made on first use, then the same counter.
        metrics.cacheEvent("hit", cache: "thumbnails")
        metrics.cacheEvent("hit", cache: "thumbnails")
        #expect(metrics.cacheEventCount("hit", cache: "page") == 3)
        #expect(metrics.cacheEventCount("hit", cache: "thumbnails") == 2)
        #expect(metrics.cacheEventCount("miss", cache: "thumbnails") == 0)
        let shown = lines(metrics)
        #expect(shown.contains(#"gateway_cache_events_total{cache="page",event="hit"} 3"#))
        #expect(shown.contains(#"gateway_cache_events_total{cache="thumbnails",event="hit"} 2"#))
    }

    @Test func withoutPresetsNothingShowsUntilCounted() {
        let metrics = GatewayMetrics()
        #expect(!lines(metrics).contains { $0.hasPrefix("gateway_cache_events_total") })
        metrics.cacheEvent("miss", cache: "page")
        #expect(lines(metrics).contains(#"gateway_cache_events_total{cache="page",event="miss"} 1"#))
        #expect(metrics.cacheEventCount("miss", cache: "page") == 1)
    }
}
