import Testing

@testable import Tracing

@Suite struct SpanQueueTests {
    private func span(_ number: Int) -> QueuedSpan {
        .record(SpanRecord(traceID: "0af7651916cd43dd8448eb211c80319c", spanID: "b7ad6b71692033\(number < 10 ? "0" : "")\(number)", parentSpanID: nil, name: "GET", kind: .server, startNanoseconds: 1, endNanoseconds: 2))
    }

    @Test func theExporterIsWokenOnceAWholeBatchWaits() {
        let queue = SpanQueue(capacity: 10, batchSize: 3)
        #expect(queue.offer(span(1)) == .queued)
        #expect(queue.offer(span(2)) == .queued)
        #expect(queue.offer(span(3)) == .batchReady)
        #expect(queue.offer(span(4)) == .queued)
        var taken: [QueuedSpan] = []
        queue.drain(into: &taken)
        #expect(taken.map(\.record.spanID) == ["b7ad6b7169203301", "b7ad6b7169203302", "b7ad6b7169203303", "b7ad6b7169203304"])
        #expect(queue.count == 0)
        #expect(queue.offer(span(5)) == .queued)
        #expect(queue.offer(span(6)) == .queued)
        #expect(queue.offer(span(7)) == .batchReady)
    }

    @Test func aFullQueueDropsAndCounts() {
        let queue = SpanQueue(capacity: 2, batchSize: 5)
        #expect(queue.batchSize == 2)
        #expect(queue.offer(span(1)) == .queued)
        #expect(queue.offer(span(2)) == .batchReady)
        #expect(queue.offer(span(3)) == .dropped)
        #expect(queue.offer(span(4)) == .dropped)
        #expect(queue.dropped == 2)
        var taken: [QueuedSpan] = []
        queue.drain(into: &taken)
        #expect(taken.count == 2)
        taken.removeAll(keepingCapacity: true)
        queue.drain(into: &taken)
        #expect(taken.isEmpty)
        #expect(queue.offer(span(5)) == .queued)
        #expect(queue.dropped == 2)
    }
}
