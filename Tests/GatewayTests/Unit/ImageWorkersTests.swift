import Foundation
@testable import Gateway
import GatewayModels
import Testing

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
