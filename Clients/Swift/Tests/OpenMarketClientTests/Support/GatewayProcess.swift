import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OpenMarketClient

/// A release gateway of the main package, run as its own process on 127.0.0.1 with a free
/// port, with the demo origin it embeds (no `--origin`) unless `arguments` name one.
///
/// The binary is `GATEWAY_BIN`, else `.build/release/gateway` of the repository this package
/// sits in (`scripts/client-test` builds it). Thread: any; ``stop()`` is idempotent and also
/// runs when the value is released.
final class GatewayProcess: @unchecked Sendable {
    let process = Process()
    let logFile: URL
    let cacheDirectory: URL
    /// The gateway's base URL, `http://127.0.0.1:PORT`.
    let url: URL
    /// The embedded demo origin's base URL (its `/__admin/` control routes), when there is one.
    let originURL: URL?

    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["GATEWAY_BIN"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        // Clients/Swift/Tests/OpenMarketClientTests/Support/GatewayProcess.swift → the repository.
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<6 { root.deleteLastPathComponent() }
        return root.appendingPathComponent(".build/release/gateway")
    }

    /// Starts a gateway and waits (up to 20 s) until it listens.
    /// - Throws: ``TestFailure`` when the binary is missing or the gateway does not start.
    init(generation: String, arguments: [String] = []) throws {
        let binary = Self.binary
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw TestFailure("no gateway at \(binary.path): run `swift build -c release --product gateway` in the repository (scripts/client-test does), or set GATEWAY_BIN")
        }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("openmarket-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        cacheDirectory = scratch.appendingPathComponent("cache")
        logFile = scratch.appendingPathComponent("gateway.log")
        FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process.executableURL = binary
        process.arguments = ["--host", "127.0.0.1", "--port", "0", "--threads", "1", "--log-level", "info",
                             "--origin-generation", generation, "--cache-dir", cacheDirectory.path] + arguments
        process.standardError = try FileHandle(forWritingTo: logFile)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        var port: Int?
        var origin: URL?
        while Date() < deadline {
            let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            for line in log.split(separator: "\n") {
                if line.contains(" gateway: "), line.contains("[Gateway] listening"), let value = Self.field("port", in: line) {
                    port = Int(value)
                }
                if line.contains(" demo-origin: "), line.contains("[DemoOrigin] demo origin ("), line.contains(") listening on "), let value = Self.field("url", in: line) {
                    origin = URL(string: value)
                }
            }
            if port != nil || !process.isRunning { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        guard let port else {
            let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            if process.isRunning { process.terminate() }
            throw TestFailure("the gateway did not start:\n\(log)")
        }
        url = URL(string: "http://127.0.0.1:\(port)")!
        originURL = origin
    }

    deinit { stop() }

    /// SIGTERM, then waits for the process to end; removes its cache directory.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: cacheDirectory.deletingLastPathComponent())
    }

    /// The generated client on the URLSession transport in its default configuration.
    func client(preferredLanguages: [String] = ["ko-KR"]) -> Client {
        OpenMarket.client(serverURL: url, session: Self.session, preferredLanguages: preferredLanguages)
    }

    /// Sets the demo origin's faults (`latencyMs`, `errorRate`, …, as JSON).
    func setOriginFaults(_ json: String) async throws {
        guard let originURL else { throw TestFailure("this gateway has no embedded demo origin") }
        var request = URLRequest(url: originURL.appendingPathComponent("__admin/faults"))
        request.httpMethod = "PUT"
        request.httpBody = Data(json.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        let (_, response) = try await Self.session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw TestFailure("PUT /__admin/faults: \((response as? HTTPURLResponse)?.statusCode ?? 0)")
        }
    }

    /// One session for every test: no cache, so conditional requests are the test's own.
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }()

    /// `value` of `name=value` in a log line.
    private static func field(_ name: String, in line: Substring) -> String? {
        guard let range = line.range(of: " \(name)=") else { return nil }
        return String(line[range.upperBound...].prefix { $0 != " " })
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
