import GatewaySupport
import Logging

/// A log handler that keeps every line as `message key=value …` (metadata sorted by key), for
/// tests that wait for what an operator would read. Any thread.
struct RecordingLogHandler: LogHandler {
    /// The lines so far, shared by every copy of the handler.
    final class Lines: Sendable {
        private let lines = Locked<[String]>([])

        var all: [String] { lines.withLock { $0 } }

        func append(_ line: String) { lines.withLock { $0.append(line) } }

        /// Whether a line holds every one of `parts`.
        func contains(_ parts: String...) -> Bool { contains(parts) }

        func contains(_ parts: [String]) -> Bool {
            all.contains { line in parts.allSatisfy { line.contains($0) } }
        }
    }

    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    /// A logger at `level` whose lines go to `lines`.
    static func logger(_ lines: Lines, level: Logger.Level = .info) -> Logger {
        var handler = RecordingLogHandler(lines: lines)
        handler.logLevel = level
        return Logger(label: "test") { _ in handler }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(
        level: Logger.Level, message: Logger.Message, metadata extra: Logger.Metadata?, source: String, file: String, function: String,
        line: UInt
    ) {
        let merged = metadata.merging(extra ?? [:]) { $1 }
        let fields = merged.keys.sorted().map { "\($0)=\(merged[$0]!)" }
        lines.append(([message.description] + fields).joined(separator: " "))
    }
}
