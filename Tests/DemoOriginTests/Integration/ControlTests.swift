@testable import DemoOrigin
import Foundation
import TestSupport
import Testing

extension DemoOriginIntegrationTests {
    /// Counters, reset, stop and resume, the data file.
    @Suite struct Control {
        @Test func countsByRouteAndExactPathButNotAdmin() async throws {
            try await OriginHarness.with { origin, port in
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    for path in ["/items/1", "/items/1", "/items/2", "/item/7", "/images/7-1.png", "/nowhere", "/item/x%20y"] {
                        _ = try client.request("GET", path)
                    }
                    _ = try client.request("HEAD", "/item/7")
                    _ = try client.request("DELETE", "/item/7", body: Array(#"{"password":"x"}"#.utf8))
                    _ = try client.request("GET", "/__admin/faults")
                    let counts = try client.request("GET", "/__admin/counts")
                    #expect(counts.header("Content-Type") == "application/json")
                    #expect(counts.text == #"{"total":9,"authorized":0,"routes":{"DELETE /item/{id}":1,"GET (unmatched)":1,"GET /images/{file}":1,"GET /item/{id}":2,"GET /items/{page}":3,"HEAD /item/{id}":1},"paths":{"DELETE /item/7":1,"GET /images/7-1.png":1,"GET /item/7":1,"GET /item/x%20y":1,"GET /items/1":2,"GET /items/2":1,"GET /nowhere":1,"HEAD /item/7":1}}"#)
                }
                let counts = origin.counts
                #expect(counts.total == 9)
                #expect(counts.count("GET", "/items/1") == 2)
                #expect(counts.count("GET", "/items/3") == 0)
                #expect(counts.route("GET", "/items/{page}") == 3)
                let cleared = try await offPool { try RawHTTPClient(port: port).request("DELETE", "/__admin/counts") }
                #expect(cleared.status == 204)
                #expect(origin.counts == RequestCounts())
                _ = try await offPool { try RawHTTPClient(port: port).request("GET", "/items/1") }
                origin.resetCounts()
                #expect(origin.counts.total == 0)
            }
        }

        @Test func resetRestoresTheSeed() async throws {
            try await OriginHarness.with { origin, port in
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    _ = try client.request("DELETE", "/item/1", headers: ["Content-Type: application/json"], body: Array(#"{"password":"password"}"#.utf8))
                    _ = try client.multipart("POST", "/item", boundary: "r", Bodies.createFields() + [Bodies.image("a.png", Bodies.png())])
                    #expect(try client.request("GET", "/item/1").status == 404)
                    #expect(try client.request("POST", "/__admin/reset").status == 204)
                    #expect(try client.request("GET", "/item/1").status == 200)
                    #expect(try client.request("GET", "/item/128").status == 404)
                }
                #expect(origin.items == CatalogueSeed.items())
                #expect(origin.counts.total == 2)
                origin.reset()
                #expect(origin.counts.total == 0)
            }
        }

        @Test func adminCatalogueIsADataFileThatLoadsBack() async throws {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("demo-origin-\(UUID().uuidString).json").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try await OriginHarness.with { origin, port in
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    _ = try client.multipart("PATCH", "/item/2", boundary: "d", [Bodies.field("title", "맥북 에어"), Bodies.field("password", "password")])
                    let dump = try client.request("GET", "/__admin/catalogue")
                    #expect(dump.text.hasPrefix(#"{"items":[{"id":1,"title":"MacBook Pro","descriptions":"Apple M1 칩은"#))
                    #expect(FileManager.default.createFile(atPath: path, contents: Data(dump.body)))
                }
            }
            try await OriginHarness.with(configure: { $0.dataFile = path }) { origin, port in
                #expect(origin.items.count == 127)
                #expect(origin.item(id: 2)?.title == "맥북 에어")
                let detail = try await offPool { try RawHTTPClient(port: port).request("GET", "/item/2") }
                #expect(try detail.json()["title"] as? String == "맥북 에어")
                // A reset goes back to the file, not to the built-in seed.
                origin.reset()
                #expect(origin.item(id: 2)?.title == "맥북 에어")
            }
        }

        @Test func unusableDataFileFailsTheStart() throws {
            var configuration = DemoOriginConfiguration()
            configuration.port = 0
            configuration.dataFile = "/nonexistent/catalogue.json"
            let origin = DemoOrigin(configuration: configuration)
            #expect(throws: DataFileError(description: "cannot read data file /nonexistent/catalogue.json")) { try origin.start() }
            #expect(origin.port == nil)
        }

        @Test func stopRefusesConnectionsAndResumeComesBackOnTheSamePort() async throws {
            try await OriginHarness.with { origin, port in
                _ = try await offPool {
                    try RawHTTPClient(port: port).multipart("POST", "/item", boundary: "s", Bodies.createFields() + [Bodies.image("a.png", Bodies.png())])
                }
                let url = origin.baseURL
                origin.stop()
                try await offPool {
                    do {
                        _ = try RawHTTPClient(port: port)
                        Issue.record("connected to a stopped origin")
                    } catch let error as RawHTTPClient.ClientError {
                        #expect(error.description == "connect failed: Connection refused")
                    }
                }
                #expect(try origin.resume() == url)
                #expect(origin.port == port)
                // Resuming or starting a running origin changes nothing.
                #expect(try origin.resume() == url)
                #expect(try origin.start() == url)
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    #expect(try client.request("GET", "/item/128").status == 200)
                }
                #expect(origin.counts.total == 2)
                // Twice over.
                origin.stop()
                try origin.resume()
                #expect(try await offPool { try RawHTTPClient(port: port).request("GET", "/items/1").status } == 200)
            }
        }
    }
}
