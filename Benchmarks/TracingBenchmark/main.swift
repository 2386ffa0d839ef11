// `swift run -c release TracingBenchmark`: what the exporter's thread spends on one server
// span of a cached hit, in nanoseconds per span, per step: the span as queued made into its
// attributes, the OTLP protobuf of a batch of 512, and its gzip (zlib level 1, as sent). Each
// figure is the median of 25 batches. The loop's part (a span appended to the queue) is
// measured by Benchmarks/counts.sh and Benchmarks/tracing.sh.
import BodyCompression
import Foundation
import GatewaySupport
import Tracing

let batchSize = 512
let resource = TraceResource.gateway(serviceName: nil, version: "0.1.0", instanceID: "bench-1", hostName: "bench", extra: [])

let tracer = Tracer(sampler: .default, queue: SpanQueue(capacity: 2048, batchSize: batchSize)) {}

/// The fields of a cached hit's server span, as a loop has them.
func fields(_ index: Int) -> (path: String, peer: String, requestID: String) {
    ("/v1/products/\(index % 50)", "127.0.0.1:\(40000 + index % 1000)", HexIDs.hex16(UInt64.random(in: 1...UInt64.max)))
}
let hits = (0..<batchSize).map(fields)
let traces = (0..<batchSize).map { _ in TraceContext.begin(traceIDParts: TraceContext.newTraceIDParts(), sampled: true) }

/// What a loop does for a sampled hit's span, for a batch: its text gathered (in storage
/// kept, as a loop keeps it), then queued.
func recordBatch() -> Int {
    var text = ServerSpanText()
    for index in 0..<batchSize {
        let hit = hits[index]
        text.reset()
        let fields = ServerSpanFields(
            trace: traces[index], status: 200, overTLS: false, elapsed: .microseconds(40), method: text.add("GET"), path: text.add(hit.path),
            route: text.add("/v1/products/{id}"), protocolVersion: text.add("1.1" as StaticString), host: text.add("127.0.0.1:18696"),
            peer: text.add(hit.peer), userAgent: text.add("OpenMarket/3.2 (iPhone; iOS 18.1)"), cacheStatus: text.add("hit"), rateLimitClass: nil,
            user: nil, requestID: text.add(hit.requestID), traceState: nil)
        tracer.recordServer(fields, text: text)
    }
    return tracer.queue.count
}

/// What the exporter does first: take the batch, the server spans read back as fields.
func takeBatch() -> [QueuedSpan] {
    var taken: [QueuedSpan] = []
    tracer.queue.drain(into: &taken)
    return taken
}

func queueBatch() -> [QueuedSpan] {
    _ = recordBatch()
    return takeBatch()
}
let queued = queueBatch()

/// The median over 25 batches of `body`'s time, in nanoseconds per span (`setUp` runs
/// before each, untimed).
func measure(_ label: String, setUp: () -> Void = {}, _ body: () -> Int) {
    var times: [Double] = []
    var sink = 0
    for _ in 0..<25 {
        setUp()
        let start = ContinuousClock.now
        sink &+= body()
        let elapsed = ContinuousClock.now - start
        let (seconds, attoseconds) = elapsed.components
        times.append((Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(batchSize))
    }
    times.sort()
    print(label.padding(toLength: 36, withPad: " ", startingAt: 0), String(format: "%8.0f ns/span", times[times.count / 2]), sink == 42 ? "" : "")
}

let records = queued.map(\.record)
let encoded = OTLPProtobuf.exportRequest(records, resource: resource)
let gzipped = Gzip.compress(encoded, level: 1)
print("batch of \(batchSize) server spans of a cached hit: protobuf \(encoded.count) B (\(encoded.count / batchSize) B/span), gzip \(gzipped.count) B")
measure("queued by a loop (recordServer)", setUp: { _ = takeBatch() }) { recordBatch() }
measure("taken by the exporter (drain)", setUp: { _ = recordBatch() }) { takeBatch().count }
measure("attributes (QueuedSpan.record)") { queued.map(\.record).count }
measure("protobuf of the records") { OTLPProtobuf.exportRequest(records, resource: resource).count }
measure("protobuf of the queued (as sent)") { OTLPProtobuf.exportRequest(queued, resource: resource).count }
measure("gzip level 1") { Gzip.compress(encoded, level: 1).count }
measure("protobuf and gzip, as sent") { Gzip.compress(OTLPProtobuf.exportRequest(queued, resource: resource), level: 1).count }
precondition(OTLPProtobuf.exportRequest(queued, resource: resource) == encoded, "the queued spans encode as their records")

// `TracingBenchmark profile`: the encoding as sent, again and again for 10 s, for `perf record`.
if CommandLine.arguments.dropFirst().first == "profile" {
    let end = ContinuousClock.now + .seconds(10)
    var total = 0
    while ContinuousClock.now < end { total &+= OTLPProtobuf.exportRequest(queued, resource: resource).count }
    print("profiled: \(total) bytes encoded")
}
