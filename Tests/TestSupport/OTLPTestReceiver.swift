import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `Tests/Tools/otlp_receiver.py` on a free loopback port: an OTLP/HTTP collector that decodes
/// what it receives with `opentelemetry-proto` (the oracle; `scripts/setup` installs it into
/// `.venv-tests`). Tests read the spans it received and set how it answers.
public final class OTLPTestReceiver: @unchecked Sendable {
    public let port: Int
    private let process: Process

    /// The package's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Starts the receiver and waits until it listens.
    /// - Throws: when the test tools' Python is missing (run `scripts/setup`) or the receiver
    ///   does not start (never skipped).
    public init() throws {
        let python = Self.root.appendingPathComponent(".venv-tests/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw ReceiverError("\(python.path) is missing: scripts/setup makes it (the test tools' Python, with opentelemetry-proto)")
        }
        let made = Process()
        made.executableURL = python
        made.arguments = [Self.root.appendingPathComponent("Tests/Tools/otlp_receiver.py").path]
        let output = Pipe()
        made.standardOutput = output
        made.standardError = FileHandle.nullDevice
        try made.run()
        process = made
        // The first line: {"port": N}.
        var line: [UInt8] = []
        while true {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard let first = byte.first else { break }
            if first == UInt8(ascii: "\n") { break }
            line.append(first)
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any], let port = object["port"] as? Int else {
            made.terminate()
            throw ReceiverError("otlp_receiver.py did not start: \(String(decoding: line, as: UTF8.self))")
        }
        self.port = port
    }

    deinit {
        stop()
    }

    /// Stops the receiver (SIGKILL: as a collector that went away looks).
    public func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// `http://127.0.0.1:port/v1/traces`.
    public var endpoint: String { "http://127.0.0.1:\(port)/v1/traces" }

    /// Every span received and accepted so far, as the receiver decoded it.
    public func spans() throws -> [[String: Any]] {
        try list("/spans")
    }

    /// Every export request: headers, byte count, decode outcome, spans, the status answered.
    public func requests() throws -> [[String: Any]] {
        try list("/requests")
    }

    /// How the next exports are answered: `status` (with `Retry-After` when given) after
    /// `delay` seconds, `times` times (every time when nil).
    public func answer(status: Int = 200, retryAfter: Int? = nil, delay: Double = 0, times: Int? = nil) throws {
        var object: [String: Any] = ["status": status, "delay": delay]
        if let retryAfter { object["retryAfter"] = retryAfter }
        if let times { object["times"] = times }
        let body = try JSONSerialization.data(withJSONObject: object)
        let response = try RawHTTPClient(port: port).request("POST", "/control", headers: ["Content-Type: application/json"], body: Array(body))
        guard response.status == 204 else { throw ReceiverError("control answered \(response.status)") }
    }

    private func list(_ path: String) throws -> [[String: Any]] {
        let response = try RawHTTPClient(port: port).request("GET", path)
        guard response.status == 200, let list = try JSONSerialization.jsonObject(with: Data(response.body)) as? [[String: Any]] else {
            throw ReceiverError("GET \(path) answered \(response.status)")
        }
        return list
    }

    public struct ReceiverError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
