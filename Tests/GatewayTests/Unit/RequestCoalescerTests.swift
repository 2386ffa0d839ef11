import Dispatch
import Synchronization
import Testing
@testable import Gateway
import GatewayModels
import GatewaySupport

@Suite struct RequestCoalescerTests {
    @Test func oneLeaderPerKeyAndEveryWaiterGetsTheResult() {
        let coalescer = RequestCoalescer<String, Int>()
        let received = Locked<[String]>([])
        #expect(coalescer.join("a") { value in received.withLock { $0.append("1:\(value)") } })
        #expect(!coalescer.join("a") { value in received.withLock { $0.append("2:\(value)") } })
        #expect(coalescer.join("b") { value in received.withLock { $0.append("b:\(value)") } })
        coalescer.finish("a", with: 7)
        #expect(received.withLock { $0 } == ["1:7", "2:7"])
        #expect(coalescer.inProgress == 1)
        #expect(coalescer.join("a") { _ in })
    }

    @Test func concurrentJoinsElectExactlyOneLeader() {
        let coalescer = RequestCoalescer<Int, Int>()
        let leaders = Atomic<Int>(0)
        let results = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 1000) { _ in
            if coalescer.join(1, waiter: { _ in results.add(1, ordering: .relaxed) }) {
                leaders.add(1, ordering: .relaxed)
            }
        }
        coalescer.finish(1, with: 0)
        #expect(leaders.load(ordering: .relaxed) == 1)
        #expect(results.load(ordering: .relaxed) == 1000)
    }
}
