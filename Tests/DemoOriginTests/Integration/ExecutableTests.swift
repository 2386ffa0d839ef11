import Foundation
import TestSupport
import Testing

extension DemoOriginIntegrationTests {
    /// The `demo-origin` executable as tests and benchmarks run it.
    @Suite struct Executable {
        /// Runs the binary with `arguments` until its URL line; returns it and its port.
        static func launch(_ arguments: [String]) throws -> (BuiltExecutable, Int) {
            let origin = try BuiltExecutable("demo-origin", arguments: arguments)
            let seen = origin.readStderr { $0.contains(/demo origin \(v[12b]+\) listening on http:/) }
            let port = seen.firstMatch(of: /url=http:\/\/127\.0\.0\.1:(\d+)/).flatMap { Int($0.1) } ?? 0
            return (origin, port)
        }

        @Test func servesAndStopsWithStatusZeroOnSIGTERM() async throws {
            let (origin, port) = try Self.launch(["--port", "0", "--error-rate", "0.5", "--seed", "3"])
            #expect(port > 0)
            let statuses = try await offPool {
                let client = try RawHTTPClient(port: port)
                return try (0..<20).map { _ in try client.request("GET", "/items/1").status }
            }
            #expect(Set(statuses) == [200, 500])
            let faults = try await offPool { try RawHTTPClient(port: port).request("GET", "/__admin/faults").text }
            #expect(faults == #"{"latencyMs":0,"errorRate":0.5,"dropRate":0,"lostAnswerRate":0,"down":false}"#)
            origin.signal(SIGTERM)
            let status = try await origin.waitForExit()
            #expect(origin.process.terminationReason == .exit)
            #expect(status == 0)
            let log = origin.remainingStderr()
            #expect(log.contains("signal=15 [DemoOriginCLI] shutting down"))
            #expect(log.contains("[Gateway] stopped"))
        }

        @Test func servesTheGenerationAskedForWithThePagingQuirk() async throws {
            let (origin, port) = try Self.launch(["--port", "0", "--generation", "v2b", "--paging-quirk", "--log-level", "info"])
            #expect(port > 0)
            try await offPool {
                let client = try RawHTTPClient(port: port)
                #expect(try client.request("GET", "/healthChecker").text == #""OK""#)
                let page = try client.request("GET", "/api/products?page_no=3&items_per_page=20").json()
                #expect(page["offset"] as? Int == 40)
                #expect((page["pages"] as? [Any])?.count == 60)
                #expect(try client.request("GET", "/items/1").status == 404)
            }
            origin.signal(SIGTERM)
            #expect(try await origin.waitForExit() == 0)
        }

        @Test(arguments: [
            (["--generation", "v3"], "--generation must be one of v1, v2, v2b."),
            (["--drop-rate", "2"], "--drop-rate must be 0 to 1."),
            (["--error-rate", "0.6", "--drop-rate", "0.5"], "--error-rate + --drop-rate + --lost-answer-rate must not exceed 1."),
            (["--port", "0", "--data-file", "/nonexistent/catalogue.json"], "error=cannot read data file /nonexistent/catalogue.json [DemoOriginCLI] cannot start"),
        ])
        func refusesBadFlagsAndDataFilesWithAMessage(_ arguments: [String], _ message: String) async throws {
            let origin = try BuiltExecutable("demo-origin", arguments: arguments)
            #expect(try await origin.waitForExit() != 0)
            #expect(origin.remainingStderr().contains(message))
        }
    }
}
