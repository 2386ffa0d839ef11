@testable import Gateway
import GatewayModels
import Testing
import GatewaySupport

/// ``CircuitBreaker``'s states, with the clock given: a run of failures or a failure ratio
/// opens it, it refuses while open, lets one probe through when half-open, and a probe's
/// outcome closes or reopens it.
@Suite struct CircuitBreakerTests {
    private final class Transitions: Sendable {
        let seen = Locked<[CircuitBreaker.Transition]>([])
        var all: [CircuitBreaker.Transition] { seen.withLock { $0 } }
    }

    private func breaker(_ configure: (inout BreakerConfiguration) -> Void = { _ in }) -> (CircuitBreaker, Transitions) {
        var settings = BreakerConfiguration()
        configure(&settings)
        let transitions = Transitions()
        return (CircuitBreaker(name: "origin", settings: settings) { transition in transitions.seen.withLock { $0.append(transition) } }, transitions)
    }

    @Test func aRunOfFailuresOpensItAndASuccessBreaksTheRun() {
        let (breaker, transitions) = breaker { $0.failures = 3; $0.ratio = 2 }
        let start = ContinuousClock.now
        for outcome in [false, false, true, false, false] { breaker.record(success: outcome, now: start) }
        #expect(breaker.state == .closed)
        #expect(breaker.admit(now: start) == .allowed)
        breaker.record(success: false, now: start + .milliseconds(10))
        #expect(breaker.state == .open)
        #expect(transitions.all == [.opened(reason: "3 failures in a row")])
        #expect(breaker.admit(now: start + .seconds(2)) == .refused(retryAfter: .milliseconds(3010)))
        // Answers to requests sent before it opened change nothing.
        breaker.record(success: true, now: start + .seconds(2))
        #expect(breaker.state == .open)
    }

    @Test func halfOpenLetsOneProbeThroughWhoseOutcomeDecides() {
        let (breaker, transitions) = breaker { $0.failures = 1; $0.openFor = .seconds(5); $0.probeTimeout = .seconds(30) }
        let start = ContinuousClock.now
        breaker.record(success: false, now: start)
        #expect(breaker.admit(now: start + .milliseconds(4999)) == .refused(retryAfter: .milliseconds(1)))
        #expect(breaker.admit(now: start + .seconds(5)) == .probe)
        #expect(breaker.state == .halfOpen)
        #expect(breaker.admit(now: start + .seconds(6)) == .refused(retryAfter: .seconds(5)))
        // The probe fails: open again, for another openFor.
        breaker.record(success: false, now: start + .seconds(6))
        #expect(breaker.state == .open)
        #expect(breaker.admit(now: start + .seconds(10)) == .refused(retryAfter: .seconds(1)))
        #expect(breaker.admit(now: start + .seconds(11)) == .probe)
        breaker.record(success: true, now: start + .seconds(11))
        #expect(breaker.state == .closed)
        #expect(breaker.admit(now: start + .seconds(11)) == .allowed)
        #expect(transitions.all == [.opened(reason: "1 failures in a row"), .halfOpened, .reopened, .halfOpened, .closed])
    }

    @Test func aProbeThatNeverReportsFreesTheSlot() {
        let (breaker, _) = breaker { $0.failures = 1; $0.openFor = .seconds(1); $0.probeTimeout = .seconds(10) }
        let start = ContinuousClock.now
        breaker.record(success: false, now: start)
        #expect(breaker.admit(now: start + .seconds(1)) == .probe)
        #expect(breaker.admit(now: start + .seconds(10)) == .refused(retryAfter: .seconds(1)))
        #expect(breaker.admit(now: start + .seconds(11)) == .probe)
    }

    @Test func aFailureRatioOverTheWindowOpensIt() {
        let (breaker, transitions) = breaker { $0.failures = 0; $0.ratio = 0.5; $0.window = .seconds(10); $0.minimumRequests = 20 }
        let start = ContinuousClock.now
        // Old failures leave the window: 10 at the start, then 19 requests (9 failures) 12 s later.
        for _ in 0..<10 { breaker.record(success: false, now: start) }
        for index in 0..<19 { breaker.record(success: index >= 9, now: start + .seconds(12)) }
        #expect(breaker.state == .closed)
        // The 20th in the window, the 10th failure: half of them.
        breaker.record(success: false, now: start + .seconds(13))
        #expect(breaker.state == .open)
        #expect(transitions.all == [.opened(reason: "10 of 20 requests failed in 10.0 seconds")])
    }

    @Test func recoveringForAWhileAfterAProbeClosedIt() {
        let (breaker, _) = breaker { $0.failures = 1; $0.openFor = .seconds(1); $0.recovery = .seconds(30) }
        let start = ContinuousClock.now
        #expect(!breaker.recovering(now: start))
        breaker.record(success: false, now: start)
        #expect(!breaker.recovering(now: start))
        #expect(breaker.admit(now: start + .seconds(1)) == .probe)
        breaker.record(success: true, now: start + .seconds(2))
        #expect(breaker.recovering(now: start + .seconds(31)))
        #expect(!breaker.recovering(now: start + .seconds(32)))
    }

    @Test func belowTheMinimumNoRatioCounts() {
        let (breaker, _) = breaker { $0.failures = 0; $0.ratio = 0.5; $0.minimumRequests = 20 }
        let start = ContinuousClock.now
        for _ in 0..<19 { breaker.record(success: false, now: start) }
        #expect(breaker.state == .closed)
    }
}
