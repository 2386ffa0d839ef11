import ArgumentParser
import Gateway
import Logging
import Observability

/// What is logged, and how lines look.
struct LogOptions: ConfigurationOptions {
    static let title = "Logs"
    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical. (env: GATEWAY_LOG_LEVEL)")
    var logLevel: String = "info"

    @Option(help: "Log format: text (key=value lines) or json (one object per line). (env: GATEWAY_LOG_FORMAT)")
    var logFormat: String = "text"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel.lowercased()) != nil else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        guard BatchedLogHandler.Format(rawValue: logFormat) != nil else { throw ValidationError("--log-format must be text or json.") }
    }

    /// The level and format are set on the process's log handler (`GatewayCommand.run`),
    /// not in the server's configuration.
    func apply(to configuration: inout GatewayConfiguration) {}

    var level: Logger.Level { Logger.Level(rawValue: logLevel.lowercased()) ?? .info }
    var format: BatchedLogHandler.Format { BatchedLogHandler.Format(rawValue: logFormat) ?? .text }
}
