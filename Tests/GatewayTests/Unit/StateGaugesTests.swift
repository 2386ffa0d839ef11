import Foundation
@testable import Gateway
@testable import Observability
import Testing

/// The gauges and counters the metrics read from state at each scrape (`onScrape`): what the
/// dashboard and the alert rules in `deploy/` read.
@Suite struct StateGaugesTests {
    /// The lines of one scrape.
    private func scrape(_ metrics: GatewayMetrics) -> Set<String> {
        Set(String(decoding: metrics.render(), as: UTF8.self).split(separator: "\n").map(String.init))
    }

    /// `gateway_origin_breaker_state` follows the breaker: 0 closed, 2 open, 1 half-open.
    @Test func theOriginBreakerStateIsReadAtEachScrape() {
        let metrics = GatewayMetrics()
        var settings = BreakerConfiguration()
        settings.failures = 1
        settings.openFor = .seconds(5)
        let breaker = CircuitBreaker(name: "origin", settings: settings)
        metrics.reportOriginBreaker(breaker)
        #expect(scrape(metrics).contains("gateway_origin_breaker_state 0.0"))
        let start = ContinuousClock.now
        breaker.record(success: false, now: start)
        #expect(scrape(metrics).contains("gateway_origin_breaker_state 2.0"))
        #expect(breaker.admit(now: start + .seconds(6)) == .probe)
        #expect(scrape(metrics).contains("gateway_origin_breaker_state 1.0"))
    }

    /// `gateway_image_host_breakers_open` counts the hosts whose breaker is not closed.
    @Test func imageHostsWithAnOpenBreakerAreCounted() {
        let metrics = GatewayMetrics()
        var settings = BreakerConfiguration()
        settings.failures = 1
        let breakers = HostBreakers(settings: settings)
        metrics.reportImageHostBreakers(breakers)
        let now = ContinuousClock.now
        breakers.breaker(for: "a.example:443").record(success: true, now: now)
        #expect(scrape(metrics).contains("gateway_image_host_breakers_open 0.0"))
        breakers.breaker(for: "b.example:443").record(success: false, now: now)
        breakers.breaker(for: "c.example:443").record(success: false, now: now)
        #expect(scrape(metrics).contains("gateway_image_host_breakers_open 2.0"))
    }

    /// `gateway_log_lines_dropped_total` counts the lines the writer dropped over its
    /// capacity, brought up to date at each scrape (a counter: it only grows).
    @Test func droppedLogLinesAreCounted() throws {
        let metrics = GatewayMetrics()
        let output = try #require(FileHandle(forWritingAtPath: "/dev/null"))
        // The writer waits out a minute after a batch's first line: nothing is written (and
        // no room made) while the test runs.
        let writer = LogWriter(output: output, capacity: 16, interval: .seconds(60))
        metrics.reportLogWriter(writer)
        #expect(scrape(metrics).contains("gateway_log_lines_dropped_total 0"))
        for _ in 0..<3 { writer.write("ten bytes\n") }
        #expect(writer.droppedLines == 2)
        #expect(scrape(metrics).contains("gateway_log_lines_dropped_total 2"))
        #expect(scrape(metrics).contains("gateway_log_lines_dropped_total 2"))
        writer.write("ten bytes\n")
        #expect(scrape(metrics).contains("gateway_log_lines_dropped_total 3"))
    }

    /// Counters of failures and changes show at 0 before the first one.
    @Test func failureCountersShowAtZeroFromTheStart() {
        let metrics = GatewayMetrics()
        metrics.declareApplicationCounters(breakers: true, auth: true)
        let lines = scrape(metrics)
        for line in [
            #"gateway_origin_breaker_transitions_total{to="open"} 0"#, #"gateway_image_host_breaker_transitions_total{to="half-open"} 0"#,
            #"gateway_origin_breaker_refused_total{kind="write"} 0"#, #"gateway_origin_backoff_total{outcome="held"} 0"#,
            "gateway_auth_key_set_failures_total 0", #"gateway_auth_tokens_total{outcome="verified"} 0"#,
        ] {
            #expect(lines.contains(line), "\(line)")
        }
    }
}
