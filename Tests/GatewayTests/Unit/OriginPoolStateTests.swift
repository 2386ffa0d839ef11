@testable import Gateway
@testable import HTTPInterface
import TestSupport
import Testing
@testable import Transport

@Suite struct OriginPoolStateTests {
    private let start = ContinuousClock.now

    private func pool(max: Int = 2, waiters: Int = 2, idle: Duration = .seconds(30)) -> Pool {
        Pool(OriginPoolState(configuration: .init(maxConnections: max, maxWaiters: waiters, idleTimeout: idle)))
    }

    /// Holds the state so `#expect` can call its mutating methods.
    final class Pool {
        var state: OriginPoolState
        init(_ state: OriginPoolState) { self.state = state }
        func lease() -> OriginPoolState.LeaseAction { state.lease() }
        func release(_ id: Int, reusable: Bool, now: ContinuousClock.Instant) -> OriginPoolState.ReleaseAction {
            state.release(id, reusable: reusable, now: now)
        }
        func cancelWaiter(_ id: Int) -> Bool { state.cancelWaiter(id) }
        func expireIdle(now: ContinuousClock.Instant) -> [Int] { state.expireIdle(now: now) }
        func idleConnectionClosed(_ id: Int) -> Bool { state.idleConnectionClosed(id) }
        var openConnections: Int { state.openConnections }
        var idleConnections: Int { state.idleConnections }
        var waiting: Int { state.waiting }
    }

    @Test func opensUpToTheCapThenQueuesThenRefuses() {
        let state = pool(max: 2, waiters: 1)
        #expect(state.lease() == .open(1))
        #expect(state.lease() == .open(2))
        #expect(state.lease() == .wait(3))
        #expect(state.lease() == .refuse)
        #expect(state.openConnections == 2)
        #expect(state.waiting == 1)
    }

    @Test func releasedConnectionsAreReusedMostRecentFirst() {
        let state = pool()
        #expect(state.lease() == .open(1))
        #expect(state.lease() == .open(2))
        #expect(state.release(1, reusable: true, now: start) == .park)
        #expect(state.release(2, reusable: true, now: start + .seconds(1)) == .park)
        #expect(state.idleConnections == 2)
        #expect(state.lease() == .use(2))
        #expect(state.lease() == .use(1))
        #expect(state.idleConnections == 0)
    }

    @Test func aReleasedConnectionGoesToTheFirstWaiter() {
        let state = pool(max: 1, waiters: 3)
        #expect(state.lease() == .open(1))
        #expect(state.lease() == .wait(2))
        #expect(state.lease() == .wait(3))
        #expect(state.release(1, reusable: true, now: start) == .handOver(1, to: 2))
        #expect(state.release(1, reusable: true, now: start) == .handOver(1, to: 3))
        #expect(state.release(1, reusable: true, now: start) == .park)
    }

    @Test func aBrokenConnectionIsClosedAndReplacedForAWaiter() {
        let state = pool(max: 1, waiters: 1)
        #expect(state.lease() == .open(1))
        #expect(state.lease() == .wait(2))
        #expect(state.release(1, reusable: false, now: start) == .closeAndOpen(1, open: 3, for: 2))
        #expect(state.openConnections == 1)
        #expect(state.release(3, reusable: false, now: start) == .close(3))
        #expect(state.openConnections == 0)
        #expect(state.lease() == .open(4))
    }

    @Test func waitersThatGiveUpLeaveTheQueue() {
        let state = pool(max: 1, waiters: 2)
        #expect(state.lease() == .open(1))
        #expect(state.lease() == .wait(2))
        #expect(state.lease() == .wait(3))
        #expect(state.cancelWaiter(2))
        #expect(!state.cancelWaiter(2))
        #expect(state.release(1, reusable: true, now: start) == .handOver(1, to: 3))
        #expect(!state.cancelWaiter(3))
    }

    @Test func idleConnectionsExpireAfterTheTimeout() {
        let state = pool(max: 3, idle: .seconds(10))
        for id in 1...3 { #expect(state.lease() == .open(id)) }
        #expect(state.release(1, reusable: true, now: start) == .park)
        #expect(state.release(2, reusable: true, now: start + .seconds(5)) == .park)
        #expect(state.expireIdle(now: start + .seconds(9)) == [])
        #expect(state.expireIdle(now: start + .seconds(10)) == [1])
        #expect(state.expireIdle(now: start + .seconds(15)) == [2])
        #expect(state.openConnections == 1)
        #expect(state.lease() == .open(4))
    }

    @Test func anIdleConnectionClosedByTheOriginIsForgotten() {
        let state = pool(max: 1)
        #expect(state.lease() == .open(1))
        #expect(!state.idleConnectionClosed(1))
        #expect(state.release(1, reusable: true, now: start) == .park)
        #expect(state.idleConnectionClosed(1))
        #expect(state.openConnections == 0)
        #expect(state.lease() == .open(2))
    }

    @Test func randomEventSequencesKeepTheInvariants() {
        var generator = SeededGenerator(seed: 9)
        let state = pool(max: 4, waiters: 3)
        var leased: [Int] = []
        var waiting: [Int] = []
        for step in 0..<5000 {
            let now = start + .milliseconds(step)
            switch generator.next() % 4 {
            case 0:
                switch state.lease() {
                case .use(let id), .open(let id): leased.append(id)
                case .wait(let id): waiting.append(id)
                case .refuse: #expect(leased.count == 4 && waiting.count == 3)
                }
            case 1, 2:
                guard !leased.isEmpty else { continue }
                let id = leased.remove(at: Int(generator.next() % UInt64(leased.count)))
                switch state.release(id, reusable: generator.next() % 3 != 0, now: now) {
                case .park, .close: break
                case .handOver(let same, let waiter):
                    #expect(same == id)
                    #expect(waiter == waiting.removeFirst())
                    leased.append(id)
                case .closeAndOpen(_, let replacement, let waiter):
                    #expect(waiter == waiting.removeFirst())
                    leased.append(replacement)
                }
            default:
                _ = state.expireIdle(now: now)
            }
            #expect(state.openConnections <= 4)
            #expect(state.openConnections == leased.count + state.idleConnections)
            #expect(state.waiting == waiting.count)
            #expect(state.waiting == 0 || state.idleConnections == 0)
        }
    }
}


@Suite struct OriginEndpointTests {
    @Test func parsesAndNeverRepeatsCredentials() throws {
        let endpoint = try OriginEndpoint(url: "https://api.example.com:8443/base/")
        #expect(endpoint.hostHeader == "api.example.com:8443")
        #expect(endpoint.basePath == "/base")
        #expect(try OriginEndpoint(url: "http://127.0.0.1").hostHeader == "127.0.0.1")
        do {
            _ = try OriginEndpoint(url: "https://admin:s3cret@api.example.com/")
            Issue.record("credentials must be refused")
        } catch {
            #expect(!error.description.contains("s3cret"))
            #expect(!error.description.contains("admin"))
            #expect(error.description == "origin URL https://***@api.example.com/ must not have a query, fragment or user")
        }
    }
}
