import GatewaySupport
import Testing

@testable import Tracing

@Suite struct HTTPServerSpanTests {
    private let trace = TraceContext(
        traceID: "4bf92f3577b34da6a3ce929d0e0e4736", parentID: "00f067aa0ba902b7", flags: "01", state: "vendor=1", spanID: "b7ad6b7169203331")

    private func fields(method: String = "GET", route: String? = "/v1/products/{id}", status: Int = 200, user: String? = nil) -> HTTPServerSpan {
        HTTPServerSpan(
            method: method, path: "/v1/products/7", route: route, status: status, protocolVersion: "2", scheme: "https", host: "shop.example:8443",
            peer: "[2001:db8::1]:51234", userAgent: "OpenMarket/3.1 iOS", cacheStatus: "hit", rateLimitClass: "reads", user: user, requestID: "r-1")
    }

    @Test func aHitIsAServerSpanNamedByItsRouteWithTheStableAttributes() {
        let span = fields(user: "user-9").record(trace: trace, elapsed: .microseconds(1500), endNanoseconds: 10_000_000, recordsEndUser: false)
        #expect(span.name == "GET /v1/products/{id}")
        #expect(span.kind == .server)
        #expect(span.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(span.spanID == "b7ad6b7169203331")
        #expect(span.parentSpanID == "00f067aa0ba902b7")
        #expect(span.parentIsRemote)
        #expect(span.traceState == "vendor=1")
        #expect(span.startNanoseconds == 8_500_000)
        #expect(span.endNanoseconds == 10_000_000)
        #expect(span.status == .unset)
        #expect(
            span.attributes == [
                SpanAttribute("http.request.method", "GET"), SpanAttribute("url.path", "/v1/products/7"), SpanAttribute("url.scheme", "https"),
                SpanAttribute("http.route", "/v1/products/{id}"), SpanAttribute("http.response.status_code", 200),
                SpanAttribute("network.protocol.version", "2"), SpanAttribute("server.address", "shop.example"), SpanAttribute("server.port", 8443),
                SpanAttribute("client.address", "2001:db8::1"), SpanAttribute("user_agent.original", "OpenMarket/3.1 iOS"),
                SpanAttribute("open_market.cache.status", "hit"), SpanAttribute("open_market.rate_limit.class", "reads"),
                SpanAttribute("open_market.request_id", "r-1"),
            ])
    }

    @Test func theSubjectIsRecordedOnlyWhenTheOperatorAsks() {
        let span = fields(user: "user-9").record(trace: trace, elapsed: .zero, endNanoseconds: 1, recordsEndUser: true)
        #expect(span.attributes.contains(SpanAttribute("enduser.id", "user-9")))
    }

    @Test func anUnmatchedPathIsNamedByItsMethodAlone() {
        let span = fields(route: nil, status: 404).record(trace: trace, elapsed: .zero, endNanoseconds: 1, recordsEndUser: false)
        #expect(span.name == "GET")
        #expect(span.status == .unset)
        #expect(!span.attributes.contains { $0.key == "http.route" })
    }

    @Test func anUnknownMethodIsOther() {
        let span = fields(method: "PROPFIND", route: nil, status: 501).record(trace: trace, elapsed: .zero, endNanoseconds: 1, recordsEndUser: false)
        #expect(span.name == "HTTP")
        #expect(span.attributes.prefix(2) == [SpanAttribute("http.request.method", "_OTHER"), SpanAttribute("http.request.method_original", "PROPFIND")])
    }

    @Test func onlyServerErrorsAreErrors() {
        let failed = fields(status: 502).record(trace: trace, elapsed: .zero, endNanoseconds: 1, recordsEndUser: false)
        #expect(failed.status == .error(""))
        #expect(failed.attributes.contains(SpanAttribute("error.type", "502")))
        let refused = fields(status: 429).record(trace: trace, elapsed: .zero, endNanoseconds: 1, recordsEndUser: false)
        #expect(refused.status == .unset)
        #expect(!refused.attributes.contains { $0.key == "error.type" })
    }

    @Test func hostsAndPeersAreSplitIntoAddressAndPort() {
        #expect(HTTPServerSpan.hostAndPort("example.com")! == ("example.com", nil))
        #expect(HTTPServerSpan.hostAndPort("example.com:80")! == ("example.com", 80))
        #expect(HTTPServerSpan.hostAndPort("[::1]")! == ("::1", nil))
        #expect(HTTPServerSpan.hostAndPort("[::1]:8080")! == ("::1", 8080))
        #expect(HTTPServerSpan.hostAndPort("a:b") == nil)
        #expect(HTTPServerSpan.hostAndPort("[::1") == nil)
        #expect(HTTPServerSpan.address(ofPeer: "192.0.2.1:5000") == "192.0.2.1")
        #expect(HTTPServerSpan.address(ofPeer: "[::1]:5000") == "::1")
    }

    /// Every attribute name the gateway writes is one of the stable conventions' names (the
    /// list of semantic conventions 1.26+ for HTTP spans, client, server, URL, network, user
    /// agent, error, end user and database), or the gateway's own under `open_market.`.
    @Test func everyNameIsAStableConventionOrTheGatewaysOwn() {
        let stable: Set<String> = [
            "http.request.method", "http.request.method_original", "http.response.status_code", "http.route", "url.path", "url.scheme",
            "url.full", "server.address", "server.port", "client.address", "network.protocol.version", "user_agent.original", "error.type",
            "enduser.id", "db.system.name", "db.operation.name", "service.name", "service.version", "service.instance.id", "host.name",
        ]
        let deprecated: Set<String> = ["http.method", "http.status_code", "http.flavor", "http.url", "http.target", "net.peer.name", "http.user_agent"]
        typealias Names = SemanticConventions
        let names = [
            Names.httpRequestMethod, Names.httpRequestMethodOriginal, Names.httpResponseStatusCode, Names.httpRoute, Names.urlPath, Names.urlScheme,
            Names.urlFull, Names.serverAddress, Names.serverPort, Names.clientAddress, Names.networkProtocolVersion, Names.userAgentOriginal,
            Names.errorType, Names.enduserID, Names.dbSystemName, Names.dbOperationName, Names.serviceName, Names.serviceVersion,
            Names.serviceInstanceID, Names.hostName, Names.cacheStatus, Names.rateLimitClass, Names.requestID, Names.imageFormat,
            Names.imageWidth, Names.imageSourceBytes, Names.placeholdersAsked, Names.refreshKind,
            Names.prefetchKind, Names.keySetLoadReason,
        ]
        for name in names {
            #expect(stable.contains(name) || name.hasPrefix("open_market."), "\(name)")
            #expect(!deprecated.contains(name))
        }
        let span = fields(method: "PROPFIND", status: 500, user: "u").record(trace: trace, elapsed: .zero, endNanoseconds: 1, recordsEndUser: true)
        for attribute in span.attributes { #expect(names.contains(attribute.key), "\(attribute.key)") }
    }
}

@Suite struct HTTPClientSpanTests {
    private let trace = TraceContext(
        traceID: "4bf92f3577b34da6a3ce929d0e0e4736", parentID: "00f067aa0ba902b7", flags: "01", state: nil, spanID: "b7ad6b7169203331")

    @Test func anOriginRequestIsAClientSpanUnderTheServerSpan() {
        let span = HTTPClientSpan(method: "GET", scheme: "https", host: "origin.example", port: 443, target: "/api/items/2?page=2&vendor=v-9", status: 200, failure: nil)
            .record(trace: trace, spanID: "1111111111111111", elapsed: .milliseconds(3), endNanoseconds: 10_000_000)
        #expect(span.kind == .client)
        #expect(span.name == "GET")
        #expect(span.parentSpanID == "b7ad6b7169203331")
        #expect(span.parentIsRemote == false)
        #expect(span.startNanoseconds == 7_000_000)
        #expect(span.status == .unset)
        #expect(
            span.attributes == [
                SpanAttribute("http.request.method", "GET"), SpanAttribute("server.address", "origin.example"), SpanAttribute("server.port", 443),
                SpanAttribute("url.full", "https://origin.example/api/items/2?page=REDACTED&vendor=REDACTED"),
                SpanAttribute("http.response.status_code", 200),
            ])
    }

    @Test func clientErrorsAreErrorsAndFailuresSayWhy() {
        let notFound = HTTPClientSpan(method: "GET", scheme: "http", host: "::1", port: 8080, target: "/item/9", status: 404, failure: nil)
            .record(trace: trace, spanID: "1111111111111111", elapsed: .zero, endNanoseconds: 1)
        #expect(notFound.status == .error(""))
        #expect(notFound.attributes.contains(SpanAttribute("error.type", "404")))
        #expect(notFound.attributes.contains(SpanAttribute("url.full", "http://[::1]:8080/item/9")))
        let timedOut = HTTPClientSpan(method: "POST", scheme: "http", host: "o", port: 80, target: "/items?flag", status: nil, failure: "timeout")
            .record(trace: trace, spanID: "1111111111111111", elapsed: .zero, endNanoseconds: 1)
        #expect(timedOut.status == .error("timeout"))
        #expect(timedOut.attributes.contains(SpanAttribute("error.type", "timeout")))
        #expect(!timedOut.attributes.contains { $0.key == "http.response.status_code" })
        #expect(timedOut.attributes.contains(SpanAttribute("url.full", "http://o/items?flag")))
    }
}

@Suite struct TraceDecisionTests {
    @Test func aClientsSampledTraceIsKeptAndGetsAServerSpan() {
        let tracer = Tracer(sampler: .default, queue: SpanQueue(capacity: 4, batchSize: 4)) {}
        let client = TraceContext.from(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "k=v")
        let started = tracer.start(client)
        #expect(started.traceID == client.traceID)
        #expect(started.parentID == "00f067aa0ba902b7")
        #expect(started.state == "k=v")
        #expect(started.isSampled)
        let spanID = try! #require(started.spanID)
        #expect(spanID.utf8.count == 16)
        #expect(started.outgoingTraceparent == "00-4bf92f3577b34da6a3ce929d0e0e4736-\(spanID)-01")
    }

    @Test func aClientsUnsampledTraceIsNotRecorded() {
        let tracer = Tracer(sampler: .default, queue: SpanQueue(capacity: 4, batchSize: 4)) {}
        let started = tracer.start(TraceContext.from(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00", tracestate: nil))
        #expect(started.spanID == nil)
        #expect(started.isSampled == false)
        #expect(started.outgoingTraceparent.hasSuffix("-00"))
    }

    @Test func aStoredAnswersDecisionReadsTheFieldsBytes() {
        let tracer = Tracer(sampler: .default, queue: SpanQueue(capacity: 4, batchSize: 4)) {}
        let sampled = Array("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01".utf8)
        let made = sampled.withUnsafeBytes { bytes in
            tracer.startStored(traceparent: bytes) { TraceContext.from(traceparent: String(decoding: sampled, as: UTF8.self), tracestate: nil) }
        }
        #expect(made?.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(made?.spanID != nil)
        let unsampled = Array("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00".utf8)
        let none = unsampled.withUnsafeBytes { bytes in
            tracer.startStored(traceparent: bytes) { Issue.record("no context is made for an unsampled answer"); return TraceContext.begin() }
        }
        #expect(none == nil)
        // No traceparent: a new trace, sampled by the root sampler.
        let fresh = tracer.startStored(traceparent: nil) { Issue.record("a new trace needs no client fields"); return TraceContext.begin() }
        #expect(fresh?.parentID == nil)
        #expect(fresh?.isSampled == true)
        let never = Tracer(sampler: Sampler(root: .alwaysOff, parentBased: true), queue: SpanQueue(capacity: 4, batchSize: 4)) {}
        #expect(never.startStored(traceparent: nil) { TraceContext.begin() } == nil)
    }

    @Test func peekAgreesWithTheParser() {
        for text in [
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-03-extra", "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01", "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",
        ] {
            let parsed = TraceContext.from(traceparent: text, tracestate: nil)
            let peeked = Array(text.utf8).withUnsafeBytes { TraceContext.peek(traceparent: $0) }
            let accepted = parsed.parentID != nil
            #expect((peeked != nil) == accepted, "\(text)")
            if let peeked {
                #expect(peeked.sampled == parsed.isSampled)
                #expect(peeked.traceIDLow == parsed.traceIDLow)
            }
        }
    }

    @Test func aFullQueueDropsWithoutWakingAgain() {
        let wakes = WakeCounter()
        let tracer = Tracer(sampler: .default, queue: SpanQueue(capacity: 2, batchSize: 2)) { wakes.increment() }
        let span = SpanRecord(traceID: "4bf92f3577b34da6a3ce929d0e0e4736", spanID: "00f067aa0ba902b7", parentSpanID: nil, name: "GET", kind: .server, startNanoseconds: 1, endNanoseconds: 2)
        for _ in 0..<5 { tracer.record(span) }
        #expect(wakes.value == 1)
        #expect(tracer.queue.dropped == 3)
    }
}

final class WakeCounter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

import Synchronization
