import GatewaySupport
import Testing

@testable import Tracing

/// Server spans as loops queue them (``ServerSpanText``, ``ServerSpanFields``, the queue's
/// ``ServerSpanLog``) and as the exporter reads them back: the same span as
/// ``HTTPServerSpan`` makes from plain values, and the same protobuf bytes.
@Suite struct ServerSpanLogTests {
    private let remote = TraceContext(
        traceID: "4bf92f3577b34da6a3ce929d0e0e4736", parentID: "00f067aa0ba902b7", flags: "01", state: "vendor=1", spanID: "b7ad6b7169203331")
    private let local = TraceContext(traceID: "0af7651916cd43dd8448eb211c80319c", parentID: nil, flags: "01", state: nil, spanID: "00000000000000ff")

    /// One span through a queue, as a loop records it and the exporter takes it.
    private func roundTrip(
        _ span: HTTPServerSpan, trace: TraceContext, overTLS: Bool, elapsed: Duration = .microseconds(1500), recordsEndUser: Bool = false
    ) -> HTTPServerSpan.Finished? {
        let queue = SpanQueue(capacity: 4, batchSize: 4)
        var text = ServerSpanText()
        text.reset()
        let fields = ServerSpanFields(
            trace: trace, status: span.status, overTLS: overTLS, elapsed: elapsed, method: text.add(span.method), path: text.add(span.path),
            route: text.add(span.route), protocolVersion: text.add(span.protocolVersion), host: text.add(span.host), peer: text.add(span.peer),
            userAgent: text.add(span.userAgent), cacheStatus: text.add(span.cacheStatus), rateLimitClass: text.add(span.rateLimitClass),
            user: text.add(span.user), requestID: text.add(span.requestID), traceState: text.add(trace.state))
        #expect(queue.offerServer(fields, text: text, endNanoseconds: 10_000_000, recordsEndUser: recordsEndUser) == .queued)
        var taken: [QueuedSpan] = []
        queue.drain(into: &taken)
        guard taken.count == 1, case .server(let finished) = taken[0] else {
            Issue.record("expected one server span, took \(taken.count)")
            return nil
        }
        return finished
    }

    private func span(
        method: String = "GET", route: String? = "/v1/products/{id}", status: Int = 200, host: String? = "shop.example:8443",
        userAgent: String? = "OpenMarket/3.1 iOS", cache: String? = "hit", rateLimit: String? = "reads", user: String? = "user-9"
    ) -> HTTPServerSpan {
        HTTPServerSpan(
            method: method, path: "/v1/products/7", route: route, status: status, protocolVersion: "2", scheme: "https", host: host,
            peer: "[2001:db8::1]:51234", userAgent: userAgent, cacheStatus: cache, rateLimitClass: rateLimit, user: user, requestID: "3f2a9c0d11e04b7a")
    }

    @Test(arguments: [false, true])
    func aSpanComesBackAsItsLoopHadIt(recordsEndUser: Bool) throws {
        let sent = span()
        let finished = try #require(roundTrip(sent, trace: remote, overTLS: true, recordsEndUser: recordsEndUser))
        #expect(finished.endNanoseconds == 10_000_000)
        #expect(finished.recordsEndUser == recordsEndUser)
        #expect(finished.trace == remote)
        #expect(finished.fields.user == (recordsEndUser ? "user-9" : nil))
        let expected = sent.record(trace: remote, elapsed: .microseconds(1500), endNanoseconds: 10_000_000, recordsEndUser: recordsEndUser)
        #expect(finished.record == expected)
        #expect(finished.record.startNanoseconds == 8_500_000)
    }

    @Test func absentFieldsStayAbsent() throws {
        let sent = span(method: "PROPFIND", route: nil, status: 503, host: nil, userAgent: nil, cache: nil, rateLimit: nil, user: nil)
        let finished = try #require(roundTrip(sent, trace: local, overTLS: false, elapsed: .zero))
        #expect(finished.fields.scheme == "http")
        #expect(finished.fields.route == nil && finished.fields.host == nil && finished.fields.userAgent == nil)
        #expect(finished.fields.cacheStatus == nil && finished.fields.rateLimitClass == nil && finished.trace.state == nil)
        var expected = sent
        expected.scheme = "http"
        #expect(finished.record == expected.record(trace: local, elapsed: .zero, endNanoseconds: 10_000_000, recordsEndUser: false))
        #expect(finished.record.name == "HTTP")
        #expect(finished.record.status == .error(""))
        #expect(finished.record.parentSpanID == nil)
    }

    @Test func aLongFieldIsCutBeforeACharacterAndBadBytesAreRepaired() throws {
        // 4,095 ASCII bytes, then "é" (2 bytes) across the 4,096-byte limit: cut before it.
        let long = String(repeating: "a", count: ServerSpanText.maxFieldBytes - 1) + "é" + "tail"
        var text = ServerSpanText()
        let range = text.add(long)
        #expect(range.count == ServerSpanText.maxFieldBytes - 1)
        #expect(text.add("") == range.upperBound..<range.upperBound)
        // A user agent with a byte that is not UTF-8 (obs-text): read back repaired.
        let queue = SpanQueue(capacity: 2, batchSize: 2)
        text.reset()
        let agent: [UInt8] = Array("Phone/1 ".utf8) + [0xFF]
        let fields = ServerSpanFields(
            trace: local, status: 200, overTLS: false, elapsed: .zero, method: text.add("GET"), path: text.add(long), route: nil,
            protocolVersion: text.add("1.1" as StaticString), host: nil, peer: text.add("192.0.2.1:5000"), userAgent: agent.withUnsafeBytes { text.add($0) },
            cacheStatus: nil, rateLimitClass: nil, user: nil, requestID: text.add("r-1"), traceState: nil)
        _ = queue.offerServer(fields, text: text, endNanoseconds: 5, recordsEndUser: false)
        var taken: [QueuedSpan] = []
        queue.drain(into: &taken)
        guard case .server(let finished) = try #require(taken.first) else {
            Issue.record("not a server span")
            return
        }
        #expect(finished.fields.path == String(repeating: "a", count: ServerSpanText.maxFieldBytes - 1))
        #expect(finished.fields.userAgent == "Phone/1 \u{FFFD}")
    }

    @Test func serverSpansCountTowardsTheQueuesBoundAndTheBatch() {
        let queue = SpanQueue(capacity: 3, batchSize: 2)
        var text = ServerSpanText()
        func offer() -> SpanQueue.Offer {
            text.reset()
            let fields = ServerSpanFields(
                trace: local, status: 200, overTLS: false, elapsed: .zero, method: text.add("GET"), path: text.add("/healthz"), route: nil,
                protocolVersion: text.add("2" as StaticString), host: nil, peer: text.add("192.0.2.1:5000"), userAgent: nil, cacheStatus: nil,
                rateLimitClass: nil, user: nil, requestID: text.add("r"), traceState: nil)
            return queue.offerServer(fields, text: text, endNanoseconds: 1, recordsEndUser: false)
        }
        #expect(offer() == .queued)
        #expect(queue.offer(.record(SpanRecord(traceID: local.traceID, spanID: "0000000000000001", parentSpanID: nil, name: "x", kind: .client, startNanoseconds: 1, endNanoseconds: 2))) == .batchReady)
        #expect(offer() == .queued)
        #expect(offer() == .dropped)
        #expect(queue.dropped == 1)
        #expect(queue.count == 3)
        var taken: [QueuedSpan] = []
        queue.drain(into: &taken)
        #expect(taken.count == 3)
        #expect(queue.count == 0)
        taken.removeAll()
        #expect(offer() == .queued)
        queue.drain(into: &taken)
        #expect(taken.count == 1)
    }

    /// The protobuf the exporter sends for a queued server span is byte for byte that of its
    /// record (which the OTLP receiver test decodes with opentelemetry-proto).
    @Test func aQueuedSpanEncodesAsItsRecord() throws {
        let resource = TraceResource.gateway(serviceName: nil, version: "1.0.0", instanceID: "i-1", hostName: "h", extra: [])
        let spans: [HTTPServerSpan.Finished] = try [
            #require(roundTrip(span(), trace: remote, overTLS: true, recordsEndUser: true)),
            #require(roundTrip(span(method: "PROPFIND", route: nil, status: 502, host: "[::1]:80", user: nil), trace: local, overTLS: false)),
            #require(roundTrip(span(host: "example.com", userAgent: String(repeating: "x", count: 300)), trace: local, overTLS: false)),
        ]
        let queued = spans.map { QueuedSpan.server($0) }
        #expect(OTLPProtobuf.exportRequest(queued, resource: resource) == OTLPProtobuf.exportRequest(spans.map(\.record), resource: resource))
        for span in spans {
            #expect(OTLPProtobuf.exportRequest([QueuedSpan.server(span)], resource: resource) == OTLPProtobuf.exportRequest([span.record], resource: resource))
        }
    }
}
