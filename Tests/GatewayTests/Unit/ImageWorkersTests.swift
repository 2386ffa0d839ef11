import Foundation
@testable import Gateway
import GatewayModels
import Testing
import GatewaySupport

/// The image workers' two lanes: background jobs (placeholders) run only when no ordinary job
/// (a client's render) waits, and each lane is bounded on its own.
@Suite struct ImageWorkersTests {
    @Test func ordinaryJobsGoBeforeWaitingBackgroundJobs() throws {
        let workers = ImageWorkers(count: 1, maxWaiting: 4, maxBackground: 2)
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let order = Locked<[String]>([])
        let started = DispatchSemaphore(value: 0)
        #expect(workers.submit {
            started.signal()
            gate.wait()
        })
        #expect(started.wait(timeout: .now() + 5) == .success)
        // The one thread is busy: these wait.
        #expect(workers.submitBackground { order.withLock { $0.append("background 1") }; done.signal() })
        #expect(workers.submitBackground { order.withLock { $0.append("background 2") }; done.signal() })
        #expect(!workers.submitBackground { order.withLock { $0.append("background 3") } })
        #expect(workers.submit { order.withLock { $0.append("render") }; done.signal() })
        #expect(workers.backgroundWaiting == 2)
        gate.signal()
        for _ in 0..<3 { #expect(done.wait(timeout: .now() + 5) == .success) }
        #expect(order.withLock { $0 } == ["render", "background 1", "background 2"])
        // A full background lane leaves the ordinary lane its room.
        #expect(workers.backgroundWaiting == 0)
    }

    @Test func eachLaneIsBoundedOnItsOwn() throws {
        let workers = ImageWorkers(count: 1, maxWaiting: 1, maxBackground: 1)
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        #expect(workers.submit {
            started.signal()
            gate.wait()
        })
        // Running, so no longer waiting.
        #expect(started.wait(timeout: .now() + 5) == .success)
        #expect(workers.submitBackground { done.signal() })
        #expect(!workers.submitBackground {})
        #expect(workers.submit { done.signal() })
        #expect(!workers.submit {})
        gate.signal()
        for _ in 0..<2 { #expect(done.wait(timeout: .now() + 5) == .success) }
    }
}

/// The wait of a miss for its placeholders: ends once every started preparation has ended
/// (those that ended before it was armed count) or when it expires; runs its work once.
@Suite struct PlaceholderWaitTests {
    @Test func endsWhenAllAreDoneOrItExpiresOnce() {
        let runs = Locked(0)
        let early = PlaceholderWait { runs.withLock { $0 += 1 } }
        early.oneDone()
        early.arm(expecting: 2)
        #expect(runs.withLock { $0 } == 0)
        early.oneDone()
        #expect(runs.withLock { $0 } == 1)
        early.expire()
        early.oneDone()
        #expect(runs.withLock { $0 } == 1)

        let none = PlaceholderWait { runs.withLock { $0 += 1 } }
        none.arm(expecting: 0)
        #expect(runs.withLock { $0 } == 2)

        let expired = PlaceholderWait { runs.withLock { $0 += 1 } }
        expired.arm(expecting: 3)
        expired.oneDone()
        expired.expire()
        expired.oneDone()
        expired.oneDone()
        #expect(runs.withLock { $0 } == 3)
    }
}
