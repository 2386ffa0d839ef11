import ArgumentParser
import DemoOrigin
import Foundation
import Logging
import Observability
import Transport

/// `demo-origin`: the Open Market stand-in on its own (v1, v2 or v2b), for tests and for
/// benchmarks against other proxies. Serves until SIGTERM or SIGINT, then exits 0.
@main
struct DemoOriginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo-origin",
        abstract: "An Open Market origin (v1, v2 or v2b API) with a seeded catalogue and fault switches.",
        discussion: """
            --generation v1 (the default) serves GET /items/{page}, GET/PATCH/DELETE /item/{id} and \
            POST /item. v2 and v2b serve GET /healthChecker, GET /api/products?page_no=&items_per_page= \
            (v2b: and search_value), GET/PATCH /api/products/{id} and POST /api/products; deletes are \
            POST /api/products/{id}/secret then DELETE /api/products/{id}/{product_secret} on v2, and \
            POST /api/products/{id}/archived then DELETE /api/products/{token} on v2b. Writes on v2/v2b \
            take the identifier header of a demo vendor and its secret (vendor 1: \
            5e1e3f0a-6a4c-11ed-a1eb-0242ac120002 / demo-secret-1; vendor 2: \
            7c9d2b1e-6a4c-11ed-a1eb-0242ac120002 / demo-secret-2). Every generation serves the item \
            images (/images/{file}, /thumbnails/{file}) and /__admin/ (faults, counts, reset, catalogue). \
            See docs/contract.md, "The demo origin".
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

    @Option(help: "Share of requests carried out and then reset without a reply (a lost answer), 0 to 1.")
    var lostAnswerRate: Double = 0

    @Option(help: "Seed of the generator that picks the failing requests.")
    var seed: UInt64 = 1

    @Option(help: "A catalogue JSON file read at start instead of the built-in seed (not written back).")
    var dataFile: String?

    @Option(help: "The Open Market API generation to serve: v1, v2 or v2b.")
    var generation: String = "v1"

    @Flag(help: "v2b: list pages hold rows [0, limit) instead of [offset, limit), as one capture of the real server did.")
    var pagingQuirk = false

    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    var faults: DemoFaults {
        DemoFaults(latencyMs: latencyMs, errorRate: errorRate, dropRate: dropRate, lostAnswerRate: lostAnswerRate)
    }

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535.") }
        if let problem = faults.problem {
            // The admin endpoint's member names, as flags.
            throw ValidationError(problem.replacingOccurrences(of: "latencyMs", with: "--latency-ms")
                .replacingOccurrences(of: "errorRate", with: "--error-rate").replacingOccurrences(of: "dropRate", with: "--drop-rate")
                .replacingOccurrences(of: "lostAnswerRate", with: "--lost-answer-rate"))
        }
        // The configuration's own enum, named through it: this target does not import GatewayModels.
        let generations = type(of: DemoOriginConfiguration().generation).allCases.map(\.rawValue)
        guard generations.contains(generation) else {
            throw ValidationError("--generation must be one of \(generations.joined(separator: ", ")).")
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
        configuration.generation = .init(rawValue: generation) ?? .v1
        configuration.pagingQuirk = pagingQuirk
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
        let signal = ProcessSignals.wait()
        logger.info("shutting down", metadata: ["signal": .stringConvertible(signal)])
        origin.shutdown()
        DemoOrigin.prepareForExit()
    }
}
