import Foundation
import Logging

/// A swift-log handler with the format of `StreamLogHandler`
/// (`2026-11-21T05:35:55.123Z info gateway: key=value [Module] message`, time in UTC with
/// milliseconds) that hands each line to a `LogWriter` instead of writing it on the calling
/// thread. Thread-safe like any value `LogHandler`.
public struct BatchedLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String
    private let writer: LogWriter

    public init(label: String, writer: LogWriter = .standardError) {
        self.label = label
        self.writer = writer
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata { merged.merge(extra) { _, new in new } }
        var line = Self.timestamp()
        line += " \(event.level) \(label):"
        for key in merged.keys.sorted() {
            line += " \(key)=\(merged[key]!)"
        }
        line += " [\(event.source)] \(event.message)\n"
        writer.write(line, urgent: event.level >= .error)
    }

    /// The current time as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var parts = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(now.tv_nsec / 1_000_000), 3))Z"
    }
}
