import Foundation
@testable import Gateway
@testable import Routing
import TestSupport
import Testing

extension IntegrationTests {
    /// Cache hits answered from stored bytes (`Router.addStored`) say exactly what the
    /// ordinary route says for the same page: the ordinary route answers when the stored
    /// path declines (here: a percent-encoded `page`, which only the decoding path reads).
    @Suite struct StoredAnswers {
        static let compared = ["ETag", "Cache-Control", "Vary", "Content-Language", "Content-Type", "Content-Encoding", "Content-Length"]

        @Test(arguments: [[String](), ["Accept-Encoding: gzip"], ["Accept-Language: en-US,en;q=0.9", "Accept-Encoding: gzip, deflate, br"]])
        func storedHitsEqualRoutedHits(_ headers: [String]) async throws {
            try await ReadPathHarness.with(configure: { $0.readPath.listTimeToLive = .seconds(600) }) { harness in
                let port = harness.port
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let miss = try client.request("GET", "/v1/products?page=1", headers: headers)
                    #expect(miss.header("Cache-Status") == "open-market-gateway; fwd=miss; stored")
                    let stored = try client.request("GET", "/v1/products?page=1", headers: headers)
                    let routed = try client.request("GET", "/v1/products?page=%31", headers: headers)
                    for response in [stored, routed] {
                        #expect(response.status == 200)
                        #expect(response.header("Cache-Status")?.hasPrefix("open-market-gateway; hit; ttl=") == true)
                        #expect(response.header("Date") != nil)
                        #expect(response.header("X-Request-ID")?.count == 32)
                    }
                    for name in Self.compared {
                        #expect(stored.header(name) == routed.header(name), "\(name)")
                        #expect(stored.header(name) == miss.header(name), "\(name)")
                    }
                    #expect(stored.body == routed.body)
                    #expect(stored.body == miss.body)
                    // 304 from both paths, for the tag the client holds.
                    let tag = try #require(stored.header("ETag"))
                    let storedNotModified = try client.request("GET", "/v1/products?page=1", headers: headers + ["If-None-Match: \(tag)"])
                    let routedNotModified = try client.request("GET", "/v1/products?page=%31", headers: headers + ["If-None-Match: \(tag)"])
                    for response in [storedNotModified, routedNotModified] {
                        #expect(response.status == 304)
                        #expect(response.body.isEmpty)
                        #expect(response.header("ETag") == tag)
                        #expect(response.header("Vary") == "Accept-Encoding, Accept-Language")
                    }
                    let weakList = try client.request("GET", "/v1/products?page=1", headers: headers + ["If-None-Match: \"x\", W/\(tag)"])
                    #expect(weakList.status == 304)
                    // The client's request id is echoed; a bad one is replaced.
                    let echoed = try client.request("GET", "/v1/products?page=1", headers: headers + ["X-Request-ID: app-41"])
                    #expect(echoed.header("X-Request-ID") == "app-41")
                    let replaced = try client.request("GET", "/v1/products?page=1", headers: headers + ["X-Request-ID: a b"])
                    #expect(replaced.header("X-Request-ID")?.count == 32)
                    // HEAD: the GET's length, no body.
                    let head = try client.request("HEAD", "/v1/products?page=1", headers: headers)
                    #expect(head.status == 200)
                    #expect(head.header("Content-Length") == stored.header("Content-Length"))
                    #expect(head.body.isEmpty)
                }
            }
        }

        @Test func healthzIsAStoredAnswerWithTheSameFields() async throws {
            try await TestServer.with { server in
                let port = server.port
                try await offPool {
                    let response = try RawHTTPClient(port: port).request("GET", "/healthz", headers: ["X-Request-ID: hz-1"])
                    #expect(response.status == 200)
                    #expect(response.header("Content-Type") == "application/json")
                    #expect(response.header("Cache-Control") == "no-store")
                    #expect(response.header("Content-Length") == "15")
                    #expect(response.header("X-Request-ID") == "hz-1")
                    #expect(response.text == #"{"status":"ok"}"#)
                }
            }
        }
    }
}
