import DemoOrigin
import Foundation
import Logging
@testable import Gateway

/// A gateway with the product reads and `/v1/images/{token}` in front of a demo origin, and
/// a second demo origin on another loopback port that is *not* the gateway's origin (for
/// what must be refused). Both origins count every request.
struct ImageHarness {
    let origin: DemoOrigin
    let originURL: URL
    let other: DemoOrigin
    let otherURL: URL
    let server: GatewayServer
    let images: ImageReads
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
        var configuration = GatewayConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.threads = 2
        configuration.shutdownGrace = .seconds(3)
        configuration.origin = originURL.absoluteString
        configuration.images.signingKey = signingKey
        configure(&configuration, otherURL.port!)
        let metrics = GatewayMetrics()
        let endpoint = try OriginEndpoint(url: originURL.absoluteString)
        let images = ImageReads(
            origin: endpoint, configuration: configuration.images, signer: try ImageSigner.make(for: configuration.images),
            metrics: metrics)
        let reads = ProductReads(
            endpoint: endpoint, configuration: configuration.readPath, compression: configuration.compression, metrics: metrics,
            imageURL: images.imageURL)
        let server = GatewayServer(
            configuration: configuration, router: GatewayApplication.router(metrics: metrics, reads: reads, images: images),
            logger: logger, metrics: metrics)
        try server.start()
        defer {
            server.shutdown()
            origin.shutdown()
            other.shutdown()
        }
        try await body(
            ImageHarness(origin: origin, originURL: originURL, other: other, otherURL: otherURL, server: server, images: images))
    }

    /// `http://127.0.0.1:PORT/path` on the gateway's origin.
    func originImage(_ path: String) -> String { Self.join(originURL, path) }
    /// The same path on the other origin.
    func otherImage(_ path: String) -> String { Self.join(otherURL, path) }

    private static func join(_ base: URL, _ path: String) -> String {
        "http://127.0.0.1:\(base.port!)" + path
    }
}
