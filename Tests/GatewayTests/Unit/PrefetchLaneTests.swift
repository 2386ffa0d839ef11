import Foundation
@testable import Gateway
import GatewayModels
import Observability
import Testing
import GatewaySupport

/// The prefetch lane: at most half of `--origin-max-connections` jobs at once, a bounded queue
/// run first in first out, nothing admitted while the origin fails.
@Suite struct PrefetchLaneTests {
    /// The metric lines of `metrics` that count prefetches.
    static func prefetchLines(_ metrics: GatewayMetrics) -> Set<String> {
        Set(String(decoding: metrics.render(), as: UTF8.self).split(separator: "\n").map(String.init).filter { $0.hasPrefix("gateway_prefetches_total{") })
    }

    @Test func runsHalfTheOriginConnectionsAtOnceAndQueuesTheRestInOrder() {
        let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
        let lane = PrefetchLane(originConnections: 4, maxQueued: 2, metrics: metrics)
        #expect(lane.concurrency == 2)
        #expect(PrefetchLane(originConnections: 1, metrics: metrics).concurrency == 1)
        let ends = Locked<[@Sendable () -> Void]>([])
        let order = Locked<[Int]>([])
        for number in 1...5 {
            let refusal = lane.submit(.image) { done in
                order.withLock { $0.append(number) }
                ends.withLock { $0.append(done) }
            }
            // Two run, two wait, the fifth is refused.
            #expect(refusal == (number == 5 ? .full : nil))
        }
        #expect(order.withLock { $0 } == [1, 2])
        #expect(lane.load.running == 2 && lane.load.queued == 2)
        // A job's end starts the next one (on a global queue); a second call to `done` is ignored.
        let first = ends.withLock { $0[0] }
        first()
        first()
        #expect(wait { order.withLock { $0 } == [1, 2, 3] })
        #expect(lane.load.running == 2 && lane.load.queued == 1)
        for index in 1..<4 {
            #expect(wait { ends.withLock { $0.count } > index })
            ends.withLock { $0[index] }()
        }
        #expect(order.withLock { $0 } == [1, 2, 3, 4])
        #expect(wait { lane.load.running == 0 && lane.load.queued == 0 })
        #expect(Self.prefetchLines(metrics) == [
            #"gateway_prefetches_total{kind="image",outcome="made"} 4"#,
            #"gateway_prefetches_total{kind="image",outcome="skipped_full"} 1"#,
        ])
    }

    /// Waiting pages and details start before waiting images, whatever the order they came in.
    @Test func waitingPagesAndDetailsGoBeforeImages() {
        let lane = PrefetchLane(originConnections: 2, metrics: GatewayMetrics(presets: GatewayMetrics.gatewayPresets))
        let ends = Locked<[@Sendable () -> Void]>([])
        let order = Locked<[String]>([])
        for (kind, name) in [(PrefetchLane.Kind.image, "image 1"), (.image, "image 2"), (.page, "page"), (.image, "image 3"), (.detail, "detail")] {
            lane.submit(kind) { done in
                order.withLock { $0.append(name) }
                ends.withLock { $0.append(done) }
            }
        }
        // One runs at once: the first image; then the page and the detail, then the images.
        for index in 0..<4 {
            #expect(wait { ends.withLock { $0.count } > index })
            ends.withLock { $0[index] }()
        }
        #expect(wait { order.withLock { $0 } == ["image 1", "page", "detail", "image 2", "image 3"] })
        ends.withLock { $0[4] }()
        #expect(wait { lane.load == (0, 0) })
    }

    /// Ten seconds after any origin failure, whatever succeeded meanwhile.
    @Test func admitsNothingWhileTheOriginFails() {
        let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
        let lane = PrefetchLane(originConnections: 32, metrics: metrics)
        let start = ContinuousClock.now
        lane.originFailed(now: start)
        #expect(lane.submit(.detail, now: start + .seconds(9)) { $0() } == .originFailing)
        #expect(lane.submit(.detail, now: start + .seconds(11)) { $0() } == nil)
        lane.originFailed(now: start + .seconds(11))
        #expect(lane.submit(.page, now: start + .seconds(20)) { $0() } == .originFailing)
        #expect(lane.submit(.page, now: start + .seconds(21)) { $0() } == nil)
        #expect(Self.prefetchLines(metrics) == [
            #"gateway_prefetches_total{kind="detail",outcome="skipped_origin_failing"} 1"#,
            #"gateway_prefetches_total{kind="detail",outcome="made"} 1"#,
            #"gateway_prefetches_total{kind="page",outcome="skipped_origin_failing"} 1"#,
            #"gateway_prefetches_total{kind="page",outcome="made"} 1"#,
        ])
    }

    /// Sources fetched ahead count as used when a client's render reads them, as wasted when
    /// ten minutes pass first or the table overflows.
    @Test func fetchedAheadSourcesCountUsedAndWasted() {
        let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
        let sources = FetchedAheadSources(metrics: metrics)
        let start = ContinuousClock.now
        sources.remember("http://a/1.png", now: start)
        sources.remember("http://a/2.png", now: start)
        sources.used("http://a/1.png", now: start + .seconds(5))
        sources.used("http://a/1.png", now: start + .seconds(6))
        sources.used("http://a/never-fetched.png", now: start + .seconds(6))
        sources.used("http://a/2.png", now: start + .seconds(601))
        #expect(sources.count == 0)
        for index in 0...FetchedAheadSources.capacity { sources.remember("http://b/\(index).png", now: start + .milliseconds(Int64(index))) }
        // Swept down to three quarters: the oldest went, unread.
        #expect(sources.count == FetchedAheadSources.capacity * 3 / 4)
        let wasted = 1 + (FetchedAheadSources.capacity + 1 - FetchedAheadSources.capacity * 3 / 4)
        #expect(Self.prefetchLines(metrics) == [
            #"gateway_prefetches_total{kind="image",outcome="used"} 1"#,
            "gateway_prefetches_total{kind=\"image\",outcome=\"wasted\"} \(wasted)",
        ])
    }

    /// A page stored by a prefetch counts `used` at its first read only, `wasted` when it
    /// leaves unread.
    @Test func prefetchMarksCountOnce() {
        let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
        do {
            let read = PrefetchMark(kind: "detail", metrics: metrics)
            read.used()
            read.used()
            _ = PrefetchMark(kind: "detail", metrics: metrics)
        }
        #expect(Self.prefetchLines(metrics) == [
            #"gateway_prefetches_total{kind="detail",outcome="used"} 1"#,
            #"gateway_prefetches_total{kind="detail",outcome="wasted"} 1"#,
        ])
    }

    private func wait(_ condition: () -> Bool) -> Bool {
        for _ in 0..<500 {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }
}

/// What a list page fetches ahead first: every item's first thumbnail (what a cell shows and
/// the app asks for), then every second one, and so on.
@Suite struct FetchAheadOrderTests {
    @Test func firstThumbnailsComeFirst() {
        let display = ProductDisplay(price: "1", discountedPrice: nil, discountRate: nil, stock: "1")
        let item = { (id: Int64, thumbnails: [String]) in
            ProductSummary(
                id: id, title: "t", price: 1, discountedPrice: nil, currency: "KRW", stock: 1, isSoldOut: false, thumbnails: thumbnails,
                registeredAt: "2021-01-24T21:26:03Z", display: display)
        }
        let page = ProductPage(page: 1, items: [item(1, ["/a1", "/a2"]), item(2, ["/b1"]), item(3, ["/c1", "/c2", "/c3"])], hasNextPage: false)
        let origins = Dictionary(uniqueKeysWithValues: ["a1", "a2", "b1", "c1", "c2", "c3"].map { ("/" + $0, "http://o/" + $0) })
        #expect(ProductReads.byPosition(page, origins) == ["http://o/a1", "http://o/b1", "http://o/c1", "http://o/a2", "http://o/c2", "http://o/c3"])
    }
}
