@testable import Gateway
import HTTPInterface
import Testing

/// ``FetchBackoff``: the steps, the jitter, the end of a backoff, and its bounds. Pure: the
/// clock and the jitter are given.
@Suite struct FetchBackoffTests {
    private let error = GatewayError.badGateway("The origin answered 503.")

    @Test func doublesUpToTheMaximumWithJitter() {
        let start = ContinuousClock.now
        let full = FetchBackoff<String>(first: .seconds(1), maximum: .seconds(8), jitter: { 1 })
        let waits = (0..<6).map { _ in full.failed("a", error: error, originStatus: 503, now: start) }
        #expect(waits == [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(8), .seconds(8)])
        // The jitter draws between half and all of each step.
        let half = FetchBackoff<String>(first: .seconds(1), maximum: .seconds(8), jitter: { 0 })
        #expect((0..<4).map { _ in half.failed("a", error: error, originStatus: nil, now: start) }
            == [.milliseconds(500), .seconds(1), .seconds(2), .seconds(4)])
        let middle = FetchBackoff<String>(first: .seconds(1), maximum: .seconds(30), jitter: { 0.5 })
        #expect(middle.failed("a", error: error, originStatus: nil, now: start) == .milliseconds(750))
    }

    @Test func blocksUntilItEndsAndASuccessForgets() throws {
        let start = ContinuousClock.now
        let backoff = FetchBackoff<String>(first: .seconds(1), maximum: .seconds(30), jitter: { 1 })
        #expect(backoff.blocked("a", now: start) == nil)
        backoff.failed("a", error: error, originStatus: 503, now: start)
        let held = try #require(backoff.blocked("a", now: start + .milliseconds(999)))
        #expect(held.failures == 1 && held.originStatus == 503 && held.error.detail == "The origin answered 503.")
        #expect(backoff.blocked("b", now: start) == nil)
        #expect(backoff.blocked("a", now: start + .seconds(1)) == nil)
        // Failing again once it ended: the next step.
        #expect(backoff.failed("a", error: error, originStatus: 503, now: start + .seconds(1)) == .seconds(2))
        backoff.succeeded("a")
        #expect(backoff.blocked("a", now: start + .seconds(2)) == nil)
        #expect(backoff.count == 0)
        #expect(backoff.failed("a", error: error, originStatus: 503, now: start + .seconds(2)) == .seconds(1))
    }

    @Test func aFailureLongAfterTheLastStartsOver() {
        let start = ContinuousClock.now
        let backoff = FetchBackoff<String>(first: .seconds(1), maximum: .seconds(4), jitter: { 1 })
        backoff.failed("a", error: error, originStatus: 503, now: start)
        backoff.failed("a", error: error, originStatus: 503, now: start + .seconds(1))
        #expect(backoff.failed("a", error: error, originStatus: 503, now: start + .seconds(3)) == .seconds(4))
        // Ended at start + 7 s; more than the maximum (4 s) after that, it starts over.
        #expect(backoff.failed("a", error: error, originStatus: 503, now: start + .seconds(12)) == .seconds(1))
    }

    @Test func keepsAtMostMaxKeys() {
        let start = ContinuousClock.now
        let backoff = FetchBackoff<Int>(first: .seconds(1), maximum: .seconds(30), maxKeys: 3, jitter: { 1 })
        backoff.failed(1, error: error, originStatus: nil, now: start)
        backoff.failed(2, error: error, originStatus: nil, now: start + .milliseconds(500))
        backoff.failed(3, error: error, originStatus: nil, now: start + .milliseconds(600))
        // Key 1's backoff has ended: it goes first.
        backoff.failed(4, error: error, originStatus: nil, now: start + .milliseconds(1200))
        #expect(backoff.count == 3)
        #expect(backoff.blocked(2, now: start + .milliseconds(1200)) != nil)
        // None has ended: the one ending soonest (2) makes room.
        backoff.failed(5, error: error, originStatus: nil, now: start + .milliseconds(1300))
        #expect(backoff.count == 3)
        #expect(backoff.blocked(2, now: start + .milliseconds(1300)) == nil)
        #expect(backoff.blocked(5, now: start + .milliseconds(1300)) != nil)
    }
}
