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

extension IntegrationTests {
    /// Trace context to the origin and back in problems; JSON access log lines.
    @Suite struct Observability {
        /// An origin that records every request and answers one v1 item for `/item/1`, 500
        /// for `/item/5`, 404 for anything else.
        final class TracingOrigin: Sendable {
            let server: GatewayServer
            private let received = Locked<[GatewayRequest]>([])
            var requests: [GatewayRequest] { received.withLock { $0 } }

            init() throws {
                var router = Router()
                let received = self.received
                router.unmatched = .immediate { request, _ in
                    received.withLock { $0.append(request) }
                    if request.path == "/item/5" { return GatewayResponse(status: 500) }
                    guard request.path == "/item/1" else { return GatewayResponse(status: 404) }
                    let item = #"{"id":1,"title":"t","descriptions":"d","price":16.9,"currency":"USD","stock":3,"discounted_price":10,"#
                        + #""thumbnails":[],"images":[],"registration_date":1611523563.7237701}"#
                    return GatewayResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(item.utf8))
                }
                server = GatewayServer(configuration: .loopback(), router: router, logger: .quiet("tracing-origin"))
                try server.start()
            }
        }

        /// A gateway in front of `origin`, logging through `handler`.
        static func gateway(_ origin: TracingOrigin, handler: BatchedLogHandler? = nil) throws -> GatewayServer {
            var configuration = GatewayConfiguration.loopback()
            configuration.origin.url = "http://127.0.0.1:\(origin.server.port)"
            let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
            let reads = ProductReads(
                endpoint: try OriginEndpoint(url: configuration.origin.url!), generation: .v1, configuration: configuration.readPath,
                compression: configuration.compression, metrics: metrics)
            let logger = handler.map { handler in Logger(label: "gateway") { _ in handler } } ?? .quiet("gateway")
            let gateway = GatewayServer(
                configuration: configuration, router: GatewayApplication.router(metrics: metrics, reads: reads), logger: logger, metrics: metrics)
            try gateway.start()
            return gateway
        }

        /// A valid `traceparent` reaches the origin with the same trace id and flags and a new
        /// span id, `tracestate` as sent; the problem body carries the trace id. A malformed
        /// one is replaced by a new trace, and its `tracestate` is dropped.
        @Test func traceContextReachesTheOrigin() async throws {
            let origin = try TracingOrigin()
            defer { origin.server.shutdown() }
            let gateway = try Self.gateway(origin)
            defer { gateway.shutdown() }
            let port = gateway.port
            let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
            let (kept, replaced) = try await offPool {
                (try RawHTTPClient(port: port).request(
                    "GET", "/v1/products/2", headers: ["traceparent: 00-\(traceID)-00f067aa0ba902b7-01", "tracestate: rojo=00f067aa0ba902b7, congo=t61rcWkgMzE"]),
                 try RawHTTPClient(port: port).request(
                    "GET", "/v1/products/3", headers: ["traceparent: 00-\(traceID.uppercased())-00f067aa0ba902b7-01", "tracestate: rojo=1"]))
            }
            let sent = origin.requests
            #expect(sent.map(\.path) == ["/item/2", "/item/3"])
            let first = try #require(sent.first?.headers["traceparent"])
            let parts = first.split(separator: "-").map(String.init)
            #expect(parts.count == 4)
            #expect(parts[0] == "00")
            #expect(parts[1] == traceID)
            #expect(parts[2].count == 16 && parts[2] != "00f067aa0ba902b7" && parts[2].allSatisfy(\.isHexDigit))
            #expect(parts[3] == "01")
            #expect(sent[0].headers["tracestate"] == "rojo=00f067aa0ba902b7, congo=t61rcWkgMzE")
            #expect(kept.status == 404)
            #expect(try kept.json()["traceId"] as? String == traceID)

            let second = try #require(sent.last?.headers["traceparent"])
            let newParts = second.split(separator: "-").map(String.init)
            #expect(newParts.count == 4)
            #expect(newParts[1].count == 32 && newParts[1] != traceID && newParts[1] != traceID.uppercased())
            #expect(newParts[3] == "00")
            #expect(sent[1].headers["tracestate"] == nil)
            #expect(try replaced.json()["traceId"] as? String == newParts[1])
        }

        /// `--log-format json`: each access line is one JSON object with the stable keys.
        @Test func jsonAccessLinesParseAndHoldTheFields() async throws {
            let origin = try TracingOrigin()
            defer { origin.server.shutdown() }
            let pipe = Pipe()
            let writer = LogWriter(output: pipe.fileHandleForWriting, interval: .seconds(3600))
            var handler = BatchedLogHandler(label: "gateway", writer: writer, format: .json)
            handler.logLevel = .info
            let gateway = try Self.gateway(origin, handler: handler)
            let port = gateway.port
            let traceID = "0af7651916cd43dd8448eb211c80319c"
            let responses = try await offPool {
                try (0..<2).map { _ in
                    try RawHTTPClient(port: port).request("GET", "/v1/products/1", headers: ["traceparent: 00-\(traceID)-b7ad6b7169203331-01"])
                }
            }
            gateway.shutdown()
            writer.flush()
            try pipe.fileHandleForWriting.close()
            let lines = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
            let objects = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            let access = objects.filter { $0["route"] != nil }
            #expect(access.count == 2)
            for (index, line) in access.enumerated() {
                #expect(line["method"] as? String == "GET")
                #expect(line["route"] as? String == "/v1/products/{id}")
                #expect(line["status"] as? Int == 200)
                #expect(line["bytes"] as? Int == responses[index].body.count)
                #expect(line["cache"] as? String == (index == 0 ? "miss" : "hit"))
                #expect(line["request_id"] as? String == responses[index].header("X-Request-ID"))
                #expect(line["trace_id"] as? String == traceID)
                #expect((line["client"] as? String)?.hasPrefix("127.0.0.1:") == true)
                #expect(line["duration_ms"] is Double || line["duration_ms"] is Int)
                #expect(line["level"] as? String == "info")
                #expect(line["message"] as? String == "GET /v1/products/1 200")
                let time = try #require(line["time"] as? String)
                #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)
            }
        }
    }
}
