import DemoOrigin
import Foundation
import Logging
@testable import Gateway

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

    /// Starts all three, runs `body`, stops them. `configure` gets the other origin's port.
    static func with(
        configure: (inout GatewayConfiguration, _ otherPort: Int) -> Void = { _, _ in },
        _ body: (ImageHarness) async throws -> Void
    ) async throws {
        var logger = Logger(label: "image-test")
        logger.logLevel = .critical
        let origin = DemoOrigin(logger: logger)
        let originURL = try origin.start()
        let other = DemoOrigin(logger: logger)
        let otherURL = try other.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("image-cache-\(UUID().uuidString)").path
        var configuration = GatewayConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.threads = 2
        configuration.shutdownGrace = .seconds(3)
        configuration.origin = originURL.absoluteString
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
        let metrics = GatewayMetrics()
        let endpoint = try OriginEndpoint(url: configuration.origin!)
        let images = try ImageReads(
            origin: endpoint, configuration: configuration.images, signer: try ImageSigner.make(for: configuration.images),
            metrics: metrics)
        let reads = ProductReads(
            endpoint: endpoint, configuration: configuration.readPath, compression: configuration.compression, metrics: metrics,
            imageURL: images.imageURL)
        let server = GatewayServer(
            configuration: configuration, router: GatewayApplication.router(metrics: metrics, reads: reads, images: images),
            logger: logger, metrics: metrics)
        try server.start()
        return (server, images)
    }

    /// Stops this gateway (after its disk writes) and runs `body` with a new one on the same
    /// configuration and cache directory: a restart.
    func afterRestart(_ body: (_ port: Int, _ images: ImageReads) async throws -> Void) async throws {
        images.disk?.drain()
        server.shutdown()
        let (restarted, images) = try Self.startGateway(configuration, logger: logger)
        defer { restarted.shutdown() }
        try await body(restarted.port, images)
    }

    /// `http://127.0.0.1:PORT/path` on the gateway's origin.
    func originImage(_ path: String) -> String { Self.join(originURL, path) }
    /// The same path on the other origin.
    func otherImage(_ path: String) -> String { Self.join(otherURL, path) }

    private static func join(_ base: URL, _ path: String) -> String {
        "http://127.0.0.1:\(base.port!)" + path
    }
}
