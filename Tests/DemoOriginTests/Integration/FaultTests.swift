@testable import DemoOrigin
import Foundation
import TestSupport
import Testing

extension DemoOriginIntegrationTests {
    @Suite struct Faults {
        @Test func latencyDelaysAnswersWithoutBlockingTheLoop() async throws {
            try await OriginHarness.with { origin, port in
                origin.setFaults(DemoFaults(latencyMs: 600))
                let clock = ContinuousClock()
                let started = clock.now
                async let slow = offPool { try RawHTTPClient(port: port).request("GET", "/item/1") }
                // The admin endpoint takes no latency; it answers while the item waits.
                try await Task.sleep(for: .milliseconds(150))
                let (counts, elapsed) = try await offPool { () -> (RawHTTPClient.Response, Duration) in
                    let before = clock.now
                    let response = try RawHTTPClient(port: port).request("GET", "/__admin/counts")
                    return (response, clock.now - before)
                }
                #expect(elapsed < .milliseconds(300))
                #expect(counts.text == #"{"total":1,"authorized":0,"routes":{"GET /item/{id}":1},"paths":{"GET /item/1":1}}"#)
                let delayed = try await slow
                #expect(delayed.status == 200)
                #expect(clock.now - started >= .milliseconds(600))
            }
        }

        @Test func errorRateOneAnswers500() async throws {
            try await OriginHarness.with { origin, port in
                origin.setFaults(DemoFaults(errorRate: 1))
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    for path in ["/items/1", "/item/1", "/images/1-1.png", "/nowhere"] {
                        let response = try client.request("GET", path)
                        #expect(response.status == 500, "\(path)")
                        #expect(response.header("Content-Type") == "application/json; charset=utf-8")
                        #expect(response.text == #"{"error":true,"reason":"Internal Server Error"}"#)
                    }
                }
            }
        }

        @Test func dropRateOneAndDownResetTheConnectionWithNoByte() async throws {
            for faults in [DemoFaults(dropRate: 1), DemoFaults(down: true), DemoFaults(latencyMs: 5000, down: true)] {
                try await OriginHarness.with { origin, port in
                    origin.setFaults(faults)
                    try await offPool {
                        let client = try RawHTTPClient(port: port)
                        do {
                            let response = try client.request("GET", "/items/1")
                            Issue.record("got \(response.status) with \(faults)")
                        } catch let error as RawHTTPClient.ClientError {
                            #expect(error.description == "connection closed before [13, 10, 13, 10]")
                        }
                        // The admin endpoint still answers, and the dropped request was counted.
                        let counts = try RawHTTPClient(port: port).request("GET", "/__admin/counts")
                        #expect(counts.text == #"{"total":1,"authorized":0,"routes":{"GET /items/{page}":1},"paths":{"GET /items/1":1}}"#)
                    }
                    origin.setFaults(DemoFaults())
                    let back = try await offPool { try RawHTTPClient(port: port).request("GET", "/items/1") }
                    #expect(back.status == 200)
                }
            }
        }

        @Test func aLostAnswerIsCarriedOutThenResetWithNoByte() async throws {
            try await OriginHarness.with { origin, port in
                origin.setFaults(DemoFaults(lostAnswerRate: 1))
                try await offPool {
                    let parts = Bodies.createFields() + [Bodies.image("a.png", Bodies.png())]
                    do {
                        let response = try RawHTTPClient(port: port).multipart("POST", "/item", boundary: "lost", parts)
                        Issue.record("got \(response.status)")
                    } catch let error as RawHTTPClient.ClientError {
                        #expect(error.description == "connection closed before [13, 10, 13, 10]")
                    }
                }
                // The create was made all the same.
                #expect(origin.items.count == 128)
                origin.setFaults(DemoFaults())
                #expect(try await offPool { try RawHTTPClient(port: port).request("GET", "/item/128") }.status == 200)
            }
        }

        @Test func seededSharesAreReproducible() async throws {
            func statuses(seed: UInt64) async throws -> [Int] {
                try await OriginHarness.with(configure: {
                    $0.seed = seed
                    $0.faults = DemoFaults(errorRate: 0.5)
                }) { origin, port in
                    try await offPool {
                        let client = try RawHTTPClient(port: port)
                        return try (0..<40).map { _ in try client.request("GET", "/item/2").status }
                    }
                }
            }
            let first = try await statuses(seed: 7)
            #expect(try await statuses(seed: 7) == first)
            let injector = FaultInjector(faults: DemoFaults(errorRate: 0.5), seed: 7)
            #expect(first == (0..<40).map { _ in injector.plan().fate == .error ? 500 : 200 })
            #expect(Set(first) == [200, 500])
        }

        @Test func adminSwitchesFaultsAndRefusesBadSettings() async throws {
            try await OriginHarness.with(configure: { $0.faults = DemoFaults(latencyMs: 1) }) { origin, port in
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    #expect(try client.request("GET", "/__admin/faults").text == #"{"latencyMs":1,"errorRate":0,"dropRate":0,"lostAnswerRate":0,"down":false}"#)
                    let set = try client.request("PUT", "/__admin/faults", headers: ["Content-Type: application/json"], body: Array(#"{"errorRate":1,"latencyMs":0}"#.utf8))
                    #expect(set.status == 200)
                    #expect(set.text == #"{"latencyMs":0,"errorRate":1,"dropRate":0,"lostAnswerRate":0,"down":false}"#)
                    #expect(try client.request("GET", "/item/1").status == 500)
                    let bad = try client.request("PUT", "/__admin/faults", body: Array(#"{"errorRate":2}"#.utf8))
                    #expect(bad.status == 400)
                    #expect(bad.text == #"{"error":true,"reason":"errorRate must be 0 to 1."}"#)
                    #expect(try client.request("PUT", "/__admin/faults", body: Array(#"{"down":true}"#.utf8)).status == 200)
                    #expect(origin.faults == DemoFaults(errorRate: 1, down: true))
                    // Reset puts back the configured faults.
                    #expect(try client.request("POST", "/__admin/reset").status == 204)
                    #expect(origin.faults == DemoFaults(latencyMs: 1))
                    #expect(try client.request("GET", "/item/1").status == 200)
                }
            }
        }
    }
}
