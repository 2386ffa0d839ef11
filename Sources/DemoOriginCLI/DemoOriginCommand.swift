import ArgumentParser
import DemoOrigin
import Foundation
import Gateway
import Logging

/// `demo-origin`: the v1 stand-in on its own, for tests and for benchmarks against other
/// proxies. Serves until SIGTERM or SIGINT, then exits 0.
@main
struct DemoOriginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-origin",
        abstract: "An Open Market v1-compatible origin with a seeded catalogue and fault switches.",
        discussion: """
            Serves GET /items/{page}, GET/PATCH/DELETE /item/{id}, POST /item, the item images, \
            and /__admin/ (faults, counts, reset, catalogue). See the README's "Demo origin".
            """)

    @Option(help: "Address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "Port to listen on; 0 picks a free one.")
    var port: Int = 8081

    @Option(help: "Milliseconds added before every answer.")
    var latencyMs: Int = 0

    @Option(help: "Share of requests answered 500, 0 to 1.")
    var errorRate: Double = 0

    @Option(help: "Share of requests whose connection is reset without a reply, 0 to 1.")
    var dropRate: Double = 0

    @Option(help: "Seed of the generator that picks the failing requests.")
    var seed: UInt64 = 1

    @Option(help: "A catalogue JSON file read at start instead of the built-in seed (not written back).")
    var dataFile: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    var faults: DemoFaults {
        DemoFaults(latencyMs: latencyMs, errorRate: errorRate, dropRate: dropRate)
    }

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535.") }
        if let problem = faults.problem {
            // The admin endpoint's member names, as flags.
            throw ValidationError(problem.replacingOccurrences(of: "latencyMs", with: "--latency-ms")
                .replacingOccurrences(of: "errorRate", with: "--error-rate").replacingOccurrences(of: "dropRate", with: "--drop-rate"))
        }
        guard Logger.Level(rawValue: logLevel.lowercased()) != nil else {
            throw ValidationError("--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
    }

    var originConfiguration: DemoOriginConfiguration {
        var configuration = DemoOriginConfiguration()
        configuration.host = host
        configuration.port = port
        configuration.faults = faults
        configuration.seed = seed
        configuration.dataFile = dataFile
        return configuration
    }

    func run() throws {
        BatchedLogHandler.bootstrap(level: Logger.Level(rawValue: logLevel.lowercased()) ?? .info)
        defer { LogWriter.standardError.flush() }
        let logger = Logger(label: "demo-origin")
        let origin = DemoOrigin(configuration: originConfiguration, logger: logger)
        do {
            try origin.start()
        } catch {
            logger.critical("cannot start", metadata: ["error": .string("\(error)")])
            LogWriter.standardError.flush()
            throw ExitCode.failure
        }
        let signal = TerminationSignal.wait()
        logger.info("shutting down", metadata: ["signal": .stringConvertible(signal)])
        origin.shutdown()
    }
}
