import Foundation
import Testing
import TestSupport

extension IntegrationTests {
    /// The `gateway` executable as an operator runs it: configured by environment, answering
    /// on its port, and leaving with exit status 0 on SIGTERM or SIGINT.
    @Suite struct Executable {
        /// The `gateway` binary `swift build` put beside the test bundle.
        static var binary: URL {
            let testBundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            var directory = testBundle.deletingLastPathComponent()
            while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("gateway").path),
                directory.path != "/"
            {
                directory = directory.deletingLastPathComponent()
            }
            return directory.appendingPathComponent("gateway")
        }

        /// Starts the binary with `environment` added, waits for its "listening" line and
        /// returns the process, its port and its stderr.
        static func launch(environment: [String: String]) throws -> (Process, Int, Pipe) {
            let process = Process()
            process.executableURL = binary
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
            let stderr = Pipe()
            process.standardError = stderr
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let seen = readUntilListening(stderr)
            let port = seen.firstMatch(of: gatewayListening).flatMap { Int($0.1) } ?? 0
            return (process, port, stderr)
        }

        /// The gateway's own "listening" line; the demo origin it may start logs one too, as
        /// `demo-origin`.
        nonisolated(unsafe) static let gatewayListening = /gateway: host=\S+ loops=\d+ port=(\d+) \[Gateway\] listening/

        /// stderr up to and including the gateway's "listening" line (or its end).
        static func readUntilListening(_ stderr: Pipe) -> String {
            var seen = ""
            while seen.firstMatch(of: gatewayListening) == nil {
                let data = stderr.fileHandleForReading.availableData
                guard !data.isEmpty else { break }
                seen += String(decoding: data, as: UTF8.self)
            }
            return seen
        }

        @Test(arguments: [SIGTERM, SIGINT])
        func stopsWithExitStatusZeroOnSignal(_ signal: Int32) async throws {
            let (process, port, stderr) = try Self.launch(environment: [
                "GATEWAY_HOST": "127.0.0.1", "GATEWAY_PORT": "0", "GATEWAY_THREADS": "2",
            ])
            #expect(port > 0)
            let health = try await offPool { try RawHTTPClient(port: port).request("GET", "/healthz") }
            #expect(health.status == 200)
            #expect(health.text == #"{"status":"ok"}"#)
            let exited = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in exited.signal() }
            kill(process.processIdentifier, signal)
            let status = try await offPool { () -> Int32 in
                // Not waitUntilExit: on Linux it spins a run loop at full CPU.
                if exited.wait(timeout: .now() + 30) == .timedOut { process.terminate() }
                return process.terminationStatus
            }
            #expect(process.terminationReason == .exit)
            #expect(status == 0)
            let log = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(log.contains("signal=\(signal) [GatewayCLI] shutting down"))
            #expect(log.contains("GET /healthz 200"))
            #expect(log.contains("gateway: [Gateway] stopped"))
        }

        /// Without `--origin`, the gateway starts the demo origin on a loopback port, logs its
        /// URL, serves from it, and stops it after itself.
        @Test func withoutOriginRunsTheDemoOrigin() async throws {
            let process = Process()
            process.executableURL = Self.binary
            process.arguments = ["--host", "127.0.0.1", "--port", "0", "--threads", "1"]
            var environment = ProcessInfo.processInfo.environment
            environment.removeValue(forKey: "GATEWAY_ORIGIN")
            process.environment = environment
            let stderr = Pipe()
            process.standardError = stderr
            process.standardOutput = FileHandle.nullDevice
            let exited = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in exited.signal() }
            try process.run()
            let seen = Self.readUntilListening(stderr)
            let match = try #require(seen.firstMatch(of: /demo-origin: url=http:\/\/127\.0\.0\.1:(\d+) \[DemoOrigin\] demo origin listening/))
            let originPort = try #require(Int(match.1))
            #expect(seen.firstMatch(of: Self.gatewayListening) != nil)
            let page = try await offPool { try RawHTTPClient(port: originPort).request("GET", "/items/1") }
            #expect(page.status == 200)
            let items = try #require(try page.json()["items"] as? [[String: Any]])
            #expect(items.count == 20)
            #expect(items.first?["title"] as? String == "MacBook Pro")
            kill(process.processIdentifier, SIGTERM)
            let status = try await offPool { () -> Int32 in
                if exited.wait(timeout: .now() + 30) == .timedOut { process.terminate() }
                return process.terminationStatus
            }
            #expect(status == 0)
            let log = seen + String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(log.contains("gateway: [Gateway] stopped"))
            #expect(log.contains("demo-origin: [Gateway] stopped"))
            // The demo origin stops after the gateway.
            let gatewayStopped = try #require(log.range(of: "gateway: [Gateway] stopped"))
            let originStopped = try #require(log.range(of: "demo-origin: [Gateway] stopped"))
            #expect(gatewayStopped.lowerBound < originStopped.lowerBound)
        }

        @Test func refusesBadConfigurationWithAMessage() async throws {
            let process = Process()
            process.executableURL = Self.binary
            process.arguments = ["--threads", "0"]
            let stderr = Pipe()
            process.standardError = stderr
            let exited = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in exited.signal() }
            try process.run()
            #expect(exited.wait(timeout: .now() + 30) == .success)
            #expect(process.terminationStatus != 0)
            let message = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(message.contains("--threads must be 1 to 256."))
        }
    }
}
