import DemoOrigin
import Foundation
@testable import Gateway
import GatewayModels
@testable import GatewayRuntime
import Logging
@testable import Observability
import TestSupport
import Testing

/// A gateway with the product reads and `/v1/images/{token}` in front of a demo origin, and
/// a second demo origin on another loopback port that is *not* the gateway's origin (for
/// what must be refused). Both origins count every request. The cache directory is a fresh
/// temporary one, removed afterwards.
struct ImageHarness {
    let origin: DemoOrigin
    let originURL: URL
    let other: DemoOrigin
    let otherURL: URL
    let server: GatewayServer
    let images: ImageReads
    let configuration: GatewayConfiguration
    let logger: Logger
    var port: Int { server.port }

    static let signingKey = "test-signing-key-0123456789abcdef"

    /// A signed gateway path for `url`.
    func path(for url: String) -> String { "/v1/images/" + images.signer.token(for: url) }

    /// Starts all three, runs `body`, stops them. `configure` gets the other origin's port;
    /// `generation` is the API the gateway's origin serves.
    static func with(
        generation: OriginGeneration = .v1,
        configure: (inout GatewayConfiguration, _ otherPort: Int) -> Void = { _, _ in },
        _ body: (ImageHarness) async throws -> Void
    ) async throws {
        let logger = Logger.quiet("image-test")
        var originConfiguration = DemoOriginConfiguration()
        originConfiguration.generation = generation
        let origin = DemoOrigin(configuration: originConfiguration, logger: logger)
        let originURL = try origin.start()
        let other = DemoOrigin(logger: logger)
        let otherURL = try other.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("image-cache-\(UUID().uuidString)").path
        var configuration = GatewayConfiguration.testing(origin: originURL)
        configuration.origin.generation = generation
        configuration.images.signingKey = signingKey
        configuration.images.cacheDirectory = directory
        configure(&configuration, otherURL.port!)
        let (server, images) = try startGateway(configuration, logger: logger)
        defer {
            server.shutdown()
            origin.shutdown()
            other.shutdown()
            try? FileManager.default.removeItem(atPath: directory)
        }
        try await body(
            ImageHarness(
                origin: origin, originURL: originURL, other: other, otherURL: otherURL, server: server, images: images,
                configuration: configuration, logger: logger))
    }

    /// A gateway on `configuration`, started.
    static func startGateway(_ configuration: GatewayConfiguration, logger: Logger) throws -> (GatewayServer, ImageReads) {
        let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
        let routes = try GatewayApplication.originRoutes(configuration: configuration, metrics: metrics)
        let server = GatewayServer(configuration: configuration, router: routes.router, logger: logger, metrics: metrics)
        try server.start()
        return (server, routes.images)
    }

    /// Stops this gateway (after its disk writes) and runs `body` with a new one on the same
    /// configuration and cache directory: a restart.
    func afterRestart(_ body: (_ port: Int, _ images: ImageReads) async throws -> Void) async throws {
        try await settle()
        images.disk?.drain()
        server.shutdown()
        let (restarted, images) = try Self.startGateway(configuration, logger: logger)
        defer { restarted.shutdown() }
        try await body(restarted.port, images)
    }

    /// Waits until no placeholder is being computed (they are written to the disk tier after
    /// the answer that fetched their source) and the prefetch lane is idle, so the disk tier
    /// and the caches hold what they will hold.
    func settle() async throws {
        let settled = try await poll(for: .seconds(10)) {
            images.placeholderPreparations.inProgress == 0 && images.lane.load == (0, 0)
        }
        #expect(settled, "placeholders still being computed")
    }

    /// GETs each of `paths`, in order, on one connection to the gateway on `port`.
    static func get(_ paths: [String], port: Int, headers: [String] = []) async throws -> [RawHTTPClient.Response] {
        try await offPool {
            let client = try RawHTTPClient(port: port)
            return try paths.map { try client.request("GET", $0, headers: headers) }
        }
    }

    /// `get(_:port:headers:)` on this harness's gateway.
    func get(_ paths: [String], headers: [String] = []) async throws -> [RawHTTPClient.Response] {
        try await Self.get(paths, port: port, headers: headers)
    }

    /// `http://127.0.0.1:PORT/path` on the gateway's origin.
    func originImage(_ path: String) -> String { Self.join(originURL, path) }
    /// The same path on the other origin.
    func otherImage(_ path: String) -> String { Self.join(otherURL, path) }

    private static func join(_ base: URL, _ path: String) -> String {
        "http://127.0.0.1:\(base.port!)" + path
    }
}
