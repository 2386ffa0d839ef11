import DemoOrigin
import Foundation
import Testing
import TestSupport
@testable import Gateway

extension IntegrationTests {
    /// A v1 contract page needs its origin page and the next one (for `hasNextPage`): both
    /// are asked at once, so a cold list costs one origin round trip, not two.
    @Suite struct ReadAhead {
        /// The origin holds every answer longer than the gateway waits. Read in order, page 2
        /// would never be asked (page 1 never arrives); asked at once, both reach the origin
        /// while page 1 is still pending, and each is asked once.
        @Test func aColdV1ListAsksItsPageAndItsReadAheadPageAtOnce() async throws {
            try await ReadPathHarness.with(
                threads: 1, demo: { $0.shutdownGrace = .milliseconds(100) },
                configure: { $0.origin.client.requestTimeout = .seconds(2) }
            ) { harness in
                harness.origin.setFaults(DemoFaults(latencyMs: 4_000))
                let port = harness.port
                async let answer = offPool { try RawHTTPClient(port: port).request("GET", "/v1/products?page=1") }
                let bothAsked = try await harness.wait {
                    harness.origin.counts.count("GET", "/items/1") == 1 && harness.origin.counts.count("GET", "/items/2") == 1
                }
                #expect(bothAsked)
                let response = try await answer
                #expect(response.status == 504)
                #expect(response.header("Content-Type") == "application/problem+json")
                #expect(harness.origin.counts.route("GET", "/items/{page}") == 2)
            }
        }

        /// With answers flowing, the page is assembled from both origin pages as before:
        /// 20 items, `hasNextPage` true, each origin page asked once.
        @Test func theAssembledPageIsTheSameAsBefore() async throws {
            try await ReadPathHarness.with(threads: 1) { harness in
                harness.origin.setFaults(DemoFaults(latencyMs: 50))
                let port = harness.port
                let response = try await offPool { try RawHTTPClient(port: port).request("GET", "/v1/products?page=1&pageSize=30") }
                #expect(response.status == 200)
                let json = try response.json()
                let ids = (json["items"] as? [[String: Any]])?.compactMap { $0["id"] as? Int }
                #expect(ids?.count == 30)
                #expect(json["hasNextPage"] as? Bool == true)
                #expect(harness.origin.counts.count("GET", "/items/1") == 1)
                #expect(harness.origin.counts.count("GET", "/items/2") == 1)
            }
        }
    }
}
