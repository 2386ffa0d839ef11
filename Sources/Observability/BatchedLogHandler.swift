import Foundation
import Logging

/// A swift-log handler that hands each line to a `LogWriter` instead of writing it on the
/// calling thread, in one of two formats:
///
/// - `text`, the format of `StreamLogHandler`
///   (`2026-11-21T05:35:55.123Z info gateway: key=value [Module] message`, time in UTC with
///   milliseconds);
/// - `json`, one object per line: `time` (RFC 3339, UTC, milliseconds), `level`, `logger`,
///   `message`, then every metadata key (`request_id`, `trace_id`, and on access lines
///   `method`, `protocol`, `route`, `status`, `duration_ms`, `bytes`, `cache`, `client`). Integers,
///   floating-point values and ``LogNumber``s are JSON numbers, other values strings.
///
/// Thread-safe like any value `LogHandler`.
public struct BatchedLogHandler: LogHandler {
    /// How lines are written (`--log-format`).
    public enum Format: String, Sendable, CaseIterable {
        case text, json
    }

    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    package let label: String
    package let writer: LogWriter
    package let format: Format

    public init(label: String, writer: LogWriter = .standardError, format: Format = .text) {
        self.label = label
        self.writer = writer
        self.format = format
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = event.metadata ?? [:]
        if !metadata.isEmpty { merged.merge(metadata) { new, _ in new } }
        if format == .json { return writer.write(jsonLine(event, merged), urgent: event.level >= .error) }
        var line = Self.timestamp()
        line += " \(event.level) \(label):"
        for key in merged.keys.sorted() {
            line += " \(key)=\(merged[key]!)"
        }
        line += " [\(event.source)] \(event.message)\n"
        writer.write(line, urgent: event.level >= .error)
    }

    /// One JSON object and a line end.
    private func jsonLine(_ event: LogEvent, _ metadata: Logger.Metadata) -> String {
        var line = #"{"time":"# + Self.quoted(Self.timestamp()) + #","level":"# + Self.quoted(event.level.rawValue)
            + #","logger":"# + Self.quoted(label) + #","message":"# + Self.quoted("\(event.message)")
        for key in metadata.keys.sorted() {
            line += "," + Self.quoted(key) + ":" + Self.json(metadata[key]!)
        }
        return line + "}\n"
    }

    private static func json(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let text): return quoted(text)
        case .stringConvertible(let convertible):
            let text = convertible.description
            let numeric = convertible is any BinaryInteger || convertible is any BinaryFloatingPoint || convertible is LogNumber
            return numeric && isJSONNumber(text) ? text : quoted(text)
        case .array(let values): return "[" + values.map(json).joined(separator: ",") + "]"
        case .dictionary(let members): return "{" + members.keys.sorted().map { quoted($0) + ":" + json(members[$0]!) }.joined(separator: ",") + "}"
        }
    }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped.
    package static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x2028...0x2029).contains(scalar.value):
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func isJSONNumber(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
            && text.utf8.first != UInt8(ascii: ".") && text.utf8.last != UInt8(ascii: ".")
    }

    /// Appends the current time as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    package static func appendTimestamp(to bytes: inout [UInt8]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        func digits(_ value: Int32, _ width: Int) {
            var divisor: Int32 = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
                divisor /= 10
            }
        }
        digits(parts.tm_year + 1900, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(parts.tm_mon + 1, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(parts.tm_mday, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(parts.tm_hour, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(parts.tm_min, 2)
        bytes.append(UInt8(ascii: ":"))
        digits(parts.tm_sec, 2)
        bytes.append(UInt8(ascii: "."))
        digits(Int32(now.tv_nsec / 1_000_000), 3)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// The current time as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    package static func timestamp() -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        appendTimestamp(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// A number already written as decimal text (`12.345`), logged as a JSON number.
public struct LogNumber: CustomStringConvertible, Sendable {
    public let description: String

    public init(_ text: String) {
        description = text
    }
}
