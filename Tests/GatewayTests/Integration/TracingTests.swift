import Foundation
@testable import Gateway
import GatewayModels
@testable import GatewayRuntime
@testable import HTTPInterface
import Logging
@testable import Observability
@testable import Routing
import TestSupport
import Testing
import GatewaySupport
import Tracing

extension IntegrationTests {
    /// Spans exported over OTLP/HTTP to a real receiver that decodes them with
    /// `opentelemetry-proto` (`Tests/Tools/otlp_receiver.py`).
    @Suite struct Tracing {
        typealias Origin = Observability.TracingOrigin

        /// A gateway in front of `origin`, exporting to `receiver` every 20 ms.
        static func gateway(
            _ origin: Origin, receiver: OTLPTestReceiver, metrics: GatewayMetrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets),
            http2: Bool = false, logger: Logger = .quiet("gateway"), configure: (inout TracingConfiguration) -> Void = { _ in }
        ) throws -> GatewayServer {
            var configuration = GatewayConfiguration.loopback()
            configuration.origin.url = "http://127.0.0.1:\(origin.server.port)"
            configuration.http2 = http2
            var tracing = TracingConfiguration(endpoint: receiver.endpoint)
            tracing.scheduleDelay = .milliseconds(20)
            configure(&tracing)
            configuration.tracing = tracing
            let reads = ProductReads(
                endpoint: try OriginEndpoint(url: configuration.origin.url!), generation: .v1, configuration: configuration.readPath,
                compression: configuration.compression, metrics: metrics)
            let gateway = GatewayServer(
                configuration: configuration, router: GatewayApplication.router(metrics: metrics, reads: reads), logger: logger, metrics: metrics)
            try gateway.start()
            return gateway
        }

        /// Waits until the receiver holds `count` spans; they are returned in arrival order.
        static func spans(_ receiver: OTLPTestReceiver, count: Int) async throws -> [[String: Any]] {
            var received: [[String: Any]] = []
            let arrived = try await poll(for: .seconds(10)) {
                received = try receiver.spans()
                return received.count >= count
            }
            #expect(arrived, "\(received.count) of \(count) spans arrived")
            return received
        }

        static func attributes(_ span: [String: Any]) -> [String: Any] { span["attributes"] as? [String: Any] ?? [:] }

        /// A miss and a hit under a client's sampled trace: two SERVER spans (kind 2) with
        /// the stable attributes, children of the client's span, and for the miss a CLIENT
        /// span (kind 3) of the origin request under it, whose id the origin's `traceparent`
        /// names, so the origin's own spans nest under it.
        @Test func aMissAndAHitAreServerSpansUnderTheClientsTrace() async throws {
            let origin = try Origin()
            defer { origin.server.shutdown() }
            let receiver = try OTLPTestReceiver()
            let gateway = try Self.gateway(origin, receiver: receiver)
            defer { gateway.shutdown() }
            let port = gateway.port
            let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
            let headers = ["traceparent: 00-\(traceID)-00f067aa0ba902b7-01", "tracestate: rojo=1", "User-Agent: OpenMarket/3.1 (iPhone)"]
            let answers = try await offPool {
                try (0..<2).map { _ in try RawHTTPClient(port: port).request("GET", "/v1/products/1", headers: headers) }
            }
            #expect(answers.map(\.status) == [200, 200])
            let received = try await Self.spans(receiver, count: 3)
            #expect(received.count == 3)
            let spans = received.filter { $0["kind"] as? Int == 2 }
            #expect(spans.count == 2)
            for (index, span) in spans.enumerated() {
                #expect(span["name"] as? String == "GET /v1/products/{id}")
                #expect(span["traceId"] as? String == traceID)
                #expect(span["parentSpanId"] as? String == "00f067aa0ba902b7")
                #expect(span["traceState"] as? String == "rojo=1")
                #expect(span["flags"] as? Int == 0x301)
                #expect((span["spanId"] as? String)?.count == 16)
                #expect((span["status"] as? [String: Any])?["code"] as? Int == 0)
                let attributes = Self.attributes(span)
                #expect(attributes["http.request.method"] as? String == "GET")
                #expect(attributes["url.path"] as? String == "/v1/products/1")
                #expect(attributes["url.scheme"] as? String == "http")
                #expect(attributes["http.route"] as? String == "/v1/products/{id}")
                #expect(attributes["http.response.status_code"] as? Int == 200)
                #expect(attributes["network.protocol.version"] as? String == "1.1")
                #expect(attributes["server.address"] as? String == "127.0.0.1")
                #expect(attributes["server.port"] == nil)
                #expect(attributes["client.address"] as? String == "127.0.0.1")
                #expect(attributes["user_agent.original"] as? String == "OpenMarket/3.1 (iPhone)")
                #expect(attributes["open_market.cache.status"] as? String == (index == 0 ? "miss" : "hit"))
                #expect(attributes["open_market.request_id"] as? String == answers[index].header("X-Request-ID"))
                #expect(attributes.count == 11)
                let start = try #require(span["start"] as? Int)
                let end = try #require(span["end"] as? Int)
                #expect(start > 1_700_000_000_000_000_000 && end >= start)
                let resource = try #require(span["resource"] as? [String: Any])
                #expect(resource["service.name"] as? String == "open-market-gateway")
                #expect(resource["service.version"] as? String == GatewayServer.version)
                #expect((resource["service.instance.id"] as? String)?.isEmpty == false)
                #expect((resource["host.name"] as? String)?.isEmpty == false)
                #expect((span["scope"] as? [String: Any])?["name"] as? String == "open-market-gateway")
            }
            let client = try #require(received.first { $0["kind"] as? Int == 3 })
            let missID = try #require(spans.first?["spanId"] as? String)
            #expect(client["name"] as? String == "GET")
            #expect(client["traceId"] as? String == traceID)
            #expect(client["parentSpanId"] as? String == missID)
            #expect((client["status"] as? [String: Any])?["code"] as? Int == 0)
            let clientAttributes = Self.attributes(client)
            #expect(clientAttributes["http.request.method"] as? String == "GET")
            #expect(clientAttributes["server.address"] as? String == "127.0.0.1")
            #expect(clientAttributes["server.port"] as? Int == origin.server.port)
            #expect(clientAttributes["url.full"] as? String == "http://127.0.0.1:\(origin.server.port)/item/1")
            #expect(clientAttributes["http.response.status_code"] as? Int == 200)
            #expect(clientAttributes.count == 5)
            let clientStart = try #require(client["start"] as? Int)
            let missStart = try #require(spans.first?["start"] as? Int)
            #expect(clientStart >= missStart)
            let sent = try #require(origin.requests.first?.headers["traceparent"])
            #expect(sent == "00-\(traceID)-\(client["spanId"] as? String ?? "?")-01")
            let requests = try receiver.requests()
            #expect(requests.allSatisfy { $0["reencodedEqual"] as? Bool == true })
            #expect(requests.allSatisfy { ($0["headers"] as? [String: String])?["content-encoding"] == "gzip" })
        }

        /// A new trace (no `traceparent`) is sampled by the root sampler; an unsampled
        /// client trace is not recorded under the parent-based default; an unknown path is
        /// named by its method alone; a 5xx is an error.
        @Test func samplingAndNamesFollowTheConventions() async throws {
            let origin = try Origin()
            defer { origin.server.shutdown() }
            let receiver = try OTLPTestReceiver()
            let gateway = try Self.gateway(origin, receiver: receiver)
            defer { gateway.shutdown() }
            let port = gateway.port
            let unsampled = "traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"
            let statuses = try await offPool {
                [
                    try RawHTTPClient(port: port).request("GET", "/v1/products/1", headers: [unsampled]).status,
                    try RawHTTPClient(port: port).request("GET", "/no/such/path").status,
                    try RawHTTPClient(port: port).request("GET", "/v1/products/5").status,
                ]
            }
            #expect(statuses == [200, 404, 502])
            let received = try await Self.spans(receiver, count: 3)
            let spans = received.filter { $0["kind"] as? Int == 2 }
            #expect(spans.map { $0["name"] as? String } == ["GET", "GET /v1/products/{id}"])
            // The origin's 500: an error on the CLIENT span (4xx and 5xx are, for a client).
            let client = try #require(received.first { $0["kind"] as? Int == 3 })
            #expect(Self.attributes(client)["error.type"] as? String == "500")
            #expect(Self.attributes(client)["http.response.status_code"] as? Int == 500)
            #expect((client["status"] as? [String: Any])?["code"] as? Int == 2)
            #expect(client["parentSpanId"] as? String == spans[1]["spanId"] as? String)
            #expect(spans.allSatisfy { ($0["parentSpanId"] as? String) == "" })
            #expect(spans.allSatisfy { $0["flags"] as? Int == 0x101 })
            #expect(Self.attributes(spans[0])["http.route"] == nil)
            #expect(Self.attributes(spans[0])["http.response.status_code"] as? Int == 404)
            #expect((spans[0]["status"] as? [String: Any])?["code"] as? Int == 0)
            #expect((spans[1]["status"] as? [String: Any])?["code"] as? Int == 2)
            #expect(Self.attributes(spans[1])["error.type"] as? String == "502")
            // The origin saw each request with the sampled flag its trace was given.
            let flags = origin.requests.compactMap { $0.headers["traceparent"]?.split(separator: "-").last.map(String.init) }
            #expect(flags == ["00", "01"])
        }

        /// Over HTTP/2: `network.protocol.version` 2; OTLP/JSON when asked; the operator's
        /// headers reach the collector.
        @Test func http2RequestsAndTheJSONProtocol() async throws {
            let origin = try Origin()
            defer { origin.server.shutdown() }
            let receiver = try OTLPTestReceiver()
            let gateway = try Self.gateway(origin, receiver: receiver, http2: true) { tracing in
                tracing.format = .json
                tracing.gzip = false
                tracing.headers = [.init("api-key", "s3cret")]
            }
            defer { gateway.shutdown() }
            let port = gateway.port
            let answers = try await offPool {
                let client = try HTTP2TestClient(port: port)
                return try client.send([.init("GET", "/v1/products/1")]) + client.send([.init("GET", "/v1/products/1")])
            }
            #expect(answers.map(\.status) == [200, 200])
            let spans = try await Self.spans(receiver, count: 3).filter { $0["kind"] as? Int == 2 }
            #expect(spans.compactMap { Self.attributes($0)["network.protocol.version"] as? String } == ["2", "2"])
            #expect(Set(spans.compactMap { Self.attributes($0)["open_market.cache.status"] as? String }) == ["miss", "hit"])
            #expect(spans.allSatisfy { $0["contentType"] as? String == "application/json" && $0["encoding"] as? String == "identity" })
            let headers = try #require(try receiver.requests().first?["headers"] as? [String: String])
            #expect(headers["api-key"] == "s3cret")
        }

        /// A collector that is down, then slow, then answering 503 with `Retry-After`:
        /// clients get the same answers throughout; failed exports are counted, and the spans
        /// kept for retry arrive once it answers; what the queue cannot hold is dropped and
        /// counted.
        @Test func aFailingCollectorChangesNothingClientsSee() async throws {
            let origin = try Origin()
            defer { origin.server.shutdown() }
            let receiver = try OTLPTestReceiver()
            receiver.stop()
            let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
            let pipe = Pipe()
            let writer = LogWriter(output: pipe.fileHandleForWriting, interval: .seconds(3600))
            var handler = BatchedLogHandler(label: "gateway", writer: writer, format: .text)
            handler.logLevel = .info
            let gateway = try Self.gateway(origin, receiver: receiver, metrics: metrics, logger: Logger(label: "gateway") { _ in handler }) { tracing in
                tracing.maxQueueSize = 4
                tracing.maxExportBatchSize = 2
                tracing.requestTimeout = .milliseconds(300)
                // The first batch's first retry waits at least 0.75 s, long past the twelve
                // requests; its second would end after 2.5 s, so the batch is then given up.
                tracing.exportTimeout = .milliseconds(2500)
                tracing.headers = [.init("api-key", "s3cret-collector-key")]
            }
            let port = gateway.port
            // Down: every request still answered; the queue (4) and what the exporter took
            // from it (at most 4) hold at most eight spans, the rest are dropped.
            let whileDown = try await offPool { try (0..<12).map { _ in try RawHTTPClient(port: port).request("GET", "/v1/products/1").status } }
            #expect(whileDown == Array(repeating: 200, count: 12))
            let full = try await poll(for: .seconds(10)) { Self.metric(metrics, "gateway_trace_spans_dropped_total{reason=\"queue_full\"}") >= 4 }
            #expect(full)
            // Past the export timeout a batch is given up, counted, and the next tried.
            let givenUp = try await poll(for: .seconds(10)) {
                Self.metric(metrics, "gateway_trace_exports_failed_total") >= 2
                    && Self.metric(metrics, "gateway_trace_spans_dropped_total{reason=\"export_failed\"}") >= 2
            }
            #expect(givenUp)
            #expect(Self.metric(metrics, "gateway_trace_spans_exported_total") == 0)
            let after = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products/1").status }
            #expect(after == 200)
            gateway.shutdown()
            writer.flush()
            try pipe.fileHandleForWriting.close()
            let log = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            // One warning for the whole run of failures, and never the collector's key.
            #expect(log.components(separatedBy: "cannot export traces").count - 1 == 1)
            #expect(!log.contains("s3cret-collector-key"))
        }

        /// A collector that answers slowly, then 503 with `Retry-After: 1`, then accepts:
        /// the batch held for retry arrives whole, and the clients' answers never changed.
        @Test func aThrottlingCollectorGetsTheBatchAfterRetryAfter() async throws {
            let origin = try Origin()
            defer { origin.server.shutdown() }
            let receiver = try OTLPTestReceiver()
            try receiver.answer(status: 503, retryAfter: 1, delay: 0.2, times: 2)
            let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
            let gateway = try Self.gateway(origin, receiver: receiver, metrics: metrics)
            defer { gateway.shutdown() }
            let port = gateway.port
            let statuses = try await offPool { try (0..<3).map { _ in try RawHTTPClient(port: port).request("GET", "/v1/products/1").status } }
            #expect(statuses == [200, 200, 200])
            let spans = try await Self.spans(receiver, count: 4)
            #expect(spans.count == 4)
            let requests = try receiver.requests()
            let refused = requests.filter { $0["answered"] as? Int == 503 }
            #expect(refused.count == 2)
            // Three server spans and the first request's client span.
            let counted = try await poll(for: .seconds(10)) { Self.metric(metrics, "gateway_trace_spans_exported_total") == 4 }
            #expect(counted)
            #expect(Self.metric(metrics, "gateway_trace_spans_dropped_total{reason=\"queue_full\"}") == 0)
            #expect(Self.metric(metrics, "gateway_trace_spans_dropped_total{reason=\"export_failed\"}") == 0)
        }

        /// A cold image under a sampled trace: the fetch of its source from the image host
        /// is a CLIENT span under the image request's SERVER span, with the host's URL, and
        /// the render an INTERNAL span `image.render` beside it, with its format and width.
        @Test func anImageFetchIsAClientSpanOfTheImageRequest() async throws {
            let receiver = try OTLPTestReceiver()
            try await ImageHarness.with(configure: { configuration, _ in
                var tracing = TracingConfiguration(endpoint: receiver.endpoint)
                tracing.scheduleDelay = .milliseconds(20)
                configuration.tracing = tracing
            }) { harness in
                let source = harness.originImage("/images/2-1.png")
                let answers = try await harness.get(
                    [harness.path(for: source) + "?w=160"], headers: ["traceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"])
                #expect(answers.map(\.status) == [200])
                let spans = try await Self.spans(receiver, count: 3).filter { $0["traceId"] as? String == "0af7651916cd43dd8448eb211c80319c" }
                #expect(spans.count == 3)
                let server = try #require(spans.first { $0["kind"] as? Int == 2 })
                let client = try #require(spans.first { $0["kind"] as? Int == 3 })
                let render = try #require(spans.first { $0["kind"] as? Int == 1 })
                #expect(render["name"] as? String == "image.render")
                #expect(render["parentSpanId"] as? String == server["spanId"] as? String)
                #expect(Self.attributes(render)["open_market.image.format"] as? String == "png")
                #expect(Self.attributes(render)["open_market.image.width"] as? Int == 160)
                #expect((Self.attributes(render)["open_market.image.source_bytes"] as? Int ?? 0) > 0)
                #expect((render["status"] as? [String: Any])?["code"] as? Int == 0)
                #expect(server["name"] as? String == "GET /v1/images/{token}")
                #expect(Self.attributes(server)["open_market.cache.status"] as? String == "miss")
                #expect(client["parentSpanId"] as? String == server["spanId"] as? String)
                #expect(Self.attributes(client)["url.full"] as? String == source)
                #expect(Self.attributes(client)["http.response.status_code"] as? Int == 200)
            }
        }

        /// The value of one series in the Prometheus text, 0 when absent.
        static func metric(_ metrics: GatewayMetrics, _ series: String) -> Int {
            let text = String(decoding: metrics.render(), as: UTF8.self)
            for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
                return Int(Double(line.dropFirst(series.count + 1)) ?? 0)
            }
            return 0
        }
    }
}
