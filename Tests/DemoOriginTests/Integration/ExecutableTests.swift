import Foundation
import Testing
import TestSupport

extension DemoOriginIntegrationTests {
    /// The `demo-origin` executable as tests and benchmarks run it.
    @Suite struct Executable {
        /// The `demo-origin` binary `swift build` put beside the test bundle.
        static var binary: URL {
            let testBundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            var directory = testBundle.deletingLastPathComponent()
            while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("demo-origin").path),
                directory.path != "/"
            {
                directory = directory.deletingLastPathComponent()
            }
            return directory.appendingPathComponent("demo-origin")
        }

        /// Runs the binary with `arguments` until its URL line; returns the process, the port
        /// and its stderr.
        static func launch(_ arguments: [String]) throws -> (Process, Int, Pipe, DispatchSemaphore) {
            let process = Process()
            process.executableURL = binary
            process.arguments = arguments
            let stderr = Pipe()
            process.standardError = stderr
            process.standardOutput = FileHandle.nullDevice
            let exited = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in exited.signal() }
            try process.run()
            var seen = ""
            while seen.firstMatch(of: /demo origin listening/) == nil {
                let data = stderr.fileHandleForReading.availableData
                guard !data.isEmpty else { break }
                seen += String(decoding: data, as: UTF8.self)
            }
            let port = seen.firstMatch(of: /url=http:\/\/127\.0\.0\.1:(\d+)/).flatMap { Int($0.1) } ?? 0
            return (process, port, stderr, exited)
        }

        static func waitForExit(_ process: Process, _ exited: DispatchSemaphore) async throws -> Int32 {
            try await offPool { () -> Int32 in
                // Not waitUntilExit: on Linux it spins a run loop at full CPU.
                if exited.wait(timeout: .now() + 30) == .timedOut { process.terminate() }
                return process.terminationStatus
            }
        }

        @Test func servesAndStopsWithStatusZeroOnSIGTERM() async throws {
            let (process, port, stderr, exited) = try Self.launch(["--port", "0", "--error-rate", "0.5", "--seed", "3"])
            #expect(port > 0)
            let statuses = try await offPool {
                let client = try RawHTTPClient(port: port)
                return try (0..<20).map { _ in try client.request("GET", "/items/1").status }
            }
            #expect(Set(statuses) == [200, 500])
            let faults = try await offPool { try RawHTTPClient(port: port).request("GET", "/__admin/faults").text }
            #expect(faults == #"{"latencyMs":0,"errorRate":0.5,"dropRate":0,"down":false}"#)
            kill(process.processIdentifier, SIGTERM)
            let status = try await Self.waitForExit(process, exited)
            #expect(process.terminationReason == .exit)
            #expect(status == 0)
            let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(log.contains("signal=15 [DemoOriginCLI] shutting down"))
            #expect(log.contains("[Gateway] stopped"))
        }

        @Test func refusesBadFlagsWithAMessage() async throws {
            let process = Process()
            process.executableURL = Self.binary
            process.arguments = ["--drop-rate", "2"]
            let stderr = Pipe()
            process.standardError = stderr
            let exited = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in exited.signal() }
            try process.run()
            let status = try await Self.waitForExit(process, exited)
            #expect(status != 0)
            let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(message.contains("--drop-rate must be 0 to 1."))
        }
    }
}
