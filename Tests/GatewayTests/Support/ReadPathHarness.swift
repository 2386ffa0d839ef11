import DemoOrigin
import Foundation
@testable import Gateway
import GatewayModels
@testable import GatewayRuntime
import Logging
@testable import Observability
import TestSupport

/// A gateway wired as the `gateway` executable wires it (reads, writes, signed images) in
/// front of a demo origin, both on 127.0.0.1, with an image cache in a fresh temporary
/// directory.
struct ReadPathHarness {
    let origin: DemoOrigin
    let server: GatewayServer
    let metrics: GatewayMetrics
    let reads: ProductReads
    /// With sign-in configured: the gateway's key set (its `status` says when it is loaded).
    var authKeys: AuthKeys? = nil
    var port: Int { server.port }

    /// Waits (up to 3 s) until `condition` holds; returns whether it did.
    func wait(until condition: () -> Bool) async throws -> Bool {
        try await poll(every: .milliseconds(10), for: .seconds(3), until: condition)
    }

    /// The cache key of list page `page` in ko-KR.
    static func listKey(_ page: Int) -> PageCacheKey {
        PageCacheKey(route: .list, number: Int64(page), locale: "ko-KR", pageSize: ListQuery.defaultPageSize)
    }

    /// Starts both, runs `body`, stops both. With a `generation` other than v1 the demo
    /// origin runs in it, and the gateway talks to it as its first vendor.
    static func with(
        threads: Int = 2, generation: OriginGeneration = .v1, demo: (inout DemoOriginConfiguration) -> Void = { _ in },
        configure: (inout GatewayConfiguration) -> Void = { _ in }, logger gatewayLogger: Logger? = nil,
        _ body: (ReadPathHarness) async throws -> Void
    ) async throws {
        let logger = Logger.quiet("read-path-test")
        var demoConfiguration = DemoOriginConfiguration()
        demoConfiguration.generation = generation
        demo(&demoConfiguration)
        let origin = DemoOrigin(configuration: demoConfiguration, logger: logger)
        let url = try origin.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("read-path-\(UUID().uuidString)").path
        var configuration = GatewayConfiguration.testing(origin: url, threads: threads)
        configuration.origin.generation = generation
        if generation != .v1 { configuration.origin.vendorIdentifier = demoConfiguration.vendors.first?.identifier }
        configuration.images.cacheDirectory = directory
        configure(&configuration)
        let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
        let routes = try GatewayApplication.originRoutes(configuration: configuration, metrics: metrics, logger: gatewayLogger ?? logger)
        let server = GatewayServer(
            configuration: configuration, router: routes.router, logger: gatewayLogger ?? logger, metrics: metrics, authenticator: routes.authenticator,
            vendorCredentials: routes.vendorCredentials)
        try server.start()
        defer {
            server.shutdown()
            origin.shutdown()
            try? FileManager.default.removeItem(atPath: directory)
        }
        try await body(ReadPathHarness(origin: origin, server: server, metrics: metrics, reads: routes.reads, authKeys: routes.authenticator?.keys))
    }
}

extension GatewayConfiguration {
    /// A server on 127.0.0.1 and a free port, with `threads` loops and a short shutdown.
    static func loopback(threads: Int = 1) -> GatewayConfiguration {
        var configuration = GatewayConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.threads = threads
        configuration.shutdownGrace = .seconds(3)
        return configuration
    }

    /// A gateway on 127.0.0.1 and a free port, with `threads` loops, in front of `origin`.
    static func testing(origin: URL, threads: Int = 2) -> GatewayConfiguration {
        var configuration = loopback(threads: threads)
        configuration.origin.url = origin.absoluteString
        return configuration
    }
}

extension Logger {
    /// A logger that says only what is critical (test servers).
    static func quiet(_ label: String) -> Logger {
        var logger = Logger(label: label)
        logger.logLevel = .critical
        return logger
    }
}
