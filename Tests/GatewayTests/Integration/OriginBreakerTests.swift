import DemoOrigin
import Foundation
@testable import Gateway
import Logging
import Observability
import TestSupport
import Testing

extension IntegrationTests {
    /// `--origin-breaker-*`: a failing origin is left alone while the breaker is open (stored
    /// pages serve, misses and writes are 503 at once and unsent), then one probe closes it.
    @Suite struct OriginBreaker {
        private func send(_ port: Int, _ target: String, method: String = "GET", headers: [String] = [], body: String = "") async throws
            -> RawHTTPClient.Response
        {
            try await offPool {
                let client = try RawHTTPClient(port: port)
                defer { client.close() }
                return try client.request(method, target, headers: headers, body: Array(body.utf8))
            }
        }

        @Test func opensOnFailuresServesWhatItHasRefusesTheRestAndCloses() async throws {
            let pipe = Pipe()
            let writer = LogWriter(output: pipe.fileHandleForWriting, interval: .seconds(3600))
            var handler = BatchedLogHandler(label: "gateway", writer: writer)
            handler.logLevel = .info
            let logger = Logger(label: "gateway") { _ in handler }
            try await ReadPathHarness.with(configure: {
                $0.readPath.listTimeToLive = .milliseconds(100)
                $0.readPath.cache.staleWhileRevalidate = .zero
                $0.origin.breaker.failures = 3
                $0.origin.breaker.openFor = .milliseconds(700)
            }, logger: logger) { harness in
                let port = harness.port
                #expect(try await send(port, "/v1/products?page=1").status == 200)
                try await Self.settle(harness)
                harness.origin.setFaults(DemoFaults(errorRate: 1))
                for id in 21...23 { #expect(try await send(port, "/v1/products/\(id)").status == 502) }
                #expect(harness.origin.counts.route("GET", "/item/{id}") == 3)

                // Open: a miss is 503 at once, unsent; a stored page serves; a write is refused unsent.
                let refused = try await send(port, "/v1/products/24")
                #expect(refused.status == 503)
                #expect(refused.header("Retry-After") == "1")
                #expect(try refused.json()["type"] as? String == "urn:open-market-gateway:problem:origin-unavailable")
                try await Task.sleep(for: .milliseconds(120))
                let stale = try await send(port, "/v1/products?page=1")
                #expect(stale.status == 200)
                #expect(stale.header("Cache-Status") == "open-market-gateway; hit; fwd=stale; detail=origin-unreachable")
                let png = Data(IntegrationTests.WritePath.png).base64EncodedString()
                let create = #"{"title":"t","description":"d","price":1,"currency":"KRW","stock":1,"password":"pw","images":[{"data":"\#(png)"}]}"#
                let keyed = ["Content-Type: application/json", "Idempotency-Key: breaker-1"]
                let write = try await send(port, "/v1/products", method: "POST", headers: keyed, body: create)
                #expect(write.status == 503)
                #expect((try write.json()["detail"] as? String)?.contains("nothing was sent to it") == true)
                #expect(harness.origin.counts.route("GET", "/item/{id}") == 3)
                #expect(harness.origin.counts.route("POST", "/item") == 0)
                #expect(try await send(port, "/readyz").json()["originBreaker"] as? String == "open")

                // Recovered: past the open time one probe goes, succeeds, and closes it.
                harness.origin.setFaults(DemoFaults())
                try await Task.sleep(for: .milliseconds(750))
                #expect(try await send(port, "/v1/products/25").status == 200)
                #expect(try await send(port, "/readyz").json()["originBreaker"] as? String == "closed")
                // The refused write left its key free: the same key now creates.
                let retried = try await send(port, "/v1/products", method: "POST", headers: keyed, body: create)
                #expect(retried.status == 201)
                #expect(retried.header("Idempotent-Replayed") == nil)
                #expect(harness.origin.counts.route("POST", "/item") == 1)

                let metrics = String(decoding: harness.metrics.render(), as: UTF8.self)
                #expect(metrics.contains(#"gateway_origin_breaker_transitions_total{to="open"} 1"#))
                #expect(metrics.contains(#"gateway_origin_breaker_transitions_total{to="closed"} 1"#))
                #expect(metrics.contains(#"gateway_origin_breaker_refused_total{kind="write"} 1"#))
                writer.flush()
                try pipe.fileHandleForWriting.close()
                let logs = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                #expect(logs.components(separatedBy: "origin circuit breaker opened").count == 2)
                #expect(logs.contains("reason=3 failures in a row"))
                #expect(logs.components(separatedBy: "origin circuit breaker closed").count == 2)
            }
        }

        /// Waits until the origin has had no request for 300 ms (a first page's prefetches are
        /// done), then zeroes its counts.
        static func settle(_ harness: ReadPathHarness) async throws {
            var last = -1
            while harness.origin.counts.total != last {
                last = harness.origin.counts.total
                try await Task.sleep(for: .milliseconds(300))
            }
            harness.origin.resetCounts()
        }

        /// A probe that fails opens it again for another interval, without another log line.
        @Test func aFailedProbeReopensIt() async throws {
            try await ReadPathHarness.with(configure: {
                $0.origin.breaker.failures = 2
                $0.origin.breaker.openFor = .milliseconds(300)
            }) { harness in
                let port = harness.port
                harness.origin.setFaults(DemoFaults(errorRate: 1))
                for id in 1...2 { #expect(try await send(port, "/v1/products/\(id)").status == 502) }
                #expect(try await send(port, "/v1/products/3").status == 503)
                try await Task.sleep(for: .milliseconds(350))
                // The probe: sent, and it fails (502); then refused again.
                #expect(try await send(port, "/v1/products/3").status == 502)
                #expect(try await send(port, "/v1/products/4").status == 503)
                #expect(harness.origin.counts.route("GET", "/item/{id}") == 3)
                let metrics = String(decoding: harness.metrics.render(), as: UTF8.self)
                #expect(metrics.contains(#"gateway_origin_breaker_transitions_total{to="open"} 2"#))
                #expect(metrics.contains(#"gateway_origin_breaker_transitions_total{to="half-open"} 1"#))
            }
        }
    }
}
