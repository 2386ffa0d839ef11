import Foundation
import GatewayModels
import HTTPCodec
import Logging
import Routing
import Transport
import GatewaySupport

/// A stand-in for the Open Market origin on the gateway's own libevent transport, one loop:
/// the API of the configured generation (``DemoOriginConfiguration/generation``: v1
/// `camp-open-market-2.herokuapp.com` 2021, v2 `market-training.yagom-academy.kr` 2022, or
/// v2b `openmarket.yagom-academy.kr`) over a seeded in-memory catalogue, PNG images served
/// like an object store, request counters, and fault switches (latency, 500s, dropped
/// connections, down) for tests and benchmarks.
///
/// ```swift
/// let origin = DemoOrigin(configuration: DemoOriginConfiguration(), logger: logger)
/// let url = try origin.start()        // http://127.0.0.1:40123
/// origin.setFaults(DemoFaults(errorRate: 0.1))
/// origin.counts.count("GET", "/items/1")
/// origin.stop(); try origin.resume()  // refused connections, then back on the same port
/// origin.shutdown()
/// ```
///
/// Every method may be called from any thread except the origin's own loop (start, stop,
/// resume and shutdown block until the loop has started or ended).
public final class DemoOrigin: Sendable {
    private let core: DemoOriginCore
    private let logger: Logger
    private let router: Router
    private let server = Locked<ServerState>(ServerState())

    private struct ServerState: @unchecked Sendable {
        var running: HTTPServer?
        var port: Int?
        var seeded = false
        var finished = false
    }

    public init(configuration: DemoOriginConfiguration = DemoOriginConfiguration(), logger: Logger = Logger(label: "demo-origin")) {
        core = DemoOriginCore(configuration: configuration)
        self.logger = logger
        router = DemoRoutes(core: core).router()
    }

    public var configuration: DemoOriginConfiguration { core.configuration }

    /// The base URL (`http://127.0.0.1:40123`) once started, also while stopped.
    public var baseURL: URL? {
        let value = core.address.value
        return value.isEmpty ? nil : URL(string: value)
    }

    /// The bound port once started, also while stopped.
    public var port: Int? { server.withLock { $0.port } }

    /// Loads the catalogue (the data file, or the built-in seed) on the first start, binds
    /// the configured host and port, and returns the base URL. The URL names `127.0.0.1`
    /// when the host is a wildcard (`0.0.0.0`, `::`). When already running, returns its URL.
    ///
    /// - Throws: ``DataFileError`` for an unusable data file, `TransportError` when the port
    ///   cannot be bound.
    @discardableResult
    public func start() throws -> URL {
        let needsSeed = server.withLock { !$0.seeded }
        if needsSeed {
            let items = try core.configuration.dataFile.map { path throws in try DataFile.load(path: path) } ?? CatalogueSeed.items()
            core.seed(with: items)
            server.withLock { $0.seeded = true }
        }
        return try bind(port: core.configuration.port)
    }

    /// Closes the listener and every connection; the catalogue, counters and faults stay.
    /// Connections to the port are refused until ``resume()``. Requests in flight get up to
    /// `shutdownGrace`.
    public func stop() {
        let running = server.withLock { state in
            defer { state.running = nil }
            return state.running
        }
        running?.shutdown()
    }

    /// Listens again on the port it had (does nothing when it is running).
    /// - Throws: `TransportError` when the port was taken meanwhile.
    @discardableResult
    public func resume() throws -> URL {
        guard let port = server.withLock({ $0.port }) else { return try start() }
        return try bind(port: port)
    }

    /// For a process about to exit, after ``shutdown()``: waits for the photo being drawn
    /// ahead (if any) and draws no more, so that exit never runs beside libvips.
    public static func prepareForExit() {
        ImageStore.stopWarmingUp()
    }

    /// Stops for good.
    public func shutdown() {
        stop()
        server.withLock { $0.finished = true }
    }

    // MARK: - Faults, counts, catalogue

    /// The fault settings now.
    public var faults: DemoFaults { core.faults.faults }

    /// Replaces the fault settings (`problem` must be nil; out-of-range values are clamped).
    public func setFaults(_ faults: DemoFaults) {
        var clamped = faults
        clamped.latencyMs = min(max(0, faults.latencyMs), 600_000)
        clamped.errorRate = min(max(0, faults.errorRate), 1)
        clamped.dropRate = min(max(0, faults.dropRate), 1 - clamped.errorRate)
        clamped.lostAnswerRate = min(max(0, faults.lostAnswerRate), 1 - clamped.errorRate - clamped.dropRate)
        core.faults.faults = clamped
    }

    /// What was received so far (admin requests aside).
    public var counts: RequestCounts { core.counter.snapshot }

    public func resetCounts() { core.counter.reset() }

    /// Catalogue back to its seed, counters zeroed, faults and their generator back to the
    /// configured start, v2/v2b delete tokens and the token override gone.
    public func reset() { core.reset() }

    /// Every item, ascending by id.
    public var items: [DemoItem] { core.catalogue.all }

    public func item(id: Int64) -> DemoItem? { core.catalogue.item(id: id) }

    /// Adds an item whose images are `photos`, served back byte for byte at
    /// `/images/{id}-{n}.jpg` (or `.png`), without the API's checks: for tests that need
    /// particular bytes at the origin (a phone photo with EXIF and GPS, a decompression bomb).
    public func addItem(photos: [(bytes: [UInt8], kind: ImageKind)]) -> DemoItem {
        core.catalogue.create(ItemForm(images: photos.map { ItemForm.Image(bytes: $0.bytes, kind: $0.kind) }))
    }

    /// While `text` is set, the first step of a v2/v2b delete (`POST /api/products/{id}/secret`
    /// or `/archived`) answers exactly `text` (200, `text/plain`) instead of a real token,
    /// after the usual identifier, secret and ownership checks: for gateway tests with a
    /// hostile origin (`https://evil.example/x`, `../../x`). nil goes back to real tokens;
    /// ``reset()`` clears it too.
    public func setDeleteTokenOverride(_ text: String?) {
        core.deleteTokens.override = text
    }

    // MARK: -

    private func bind(port: Int) throws -> URL {
        let configuration = core.configuration
        var serverConfiguration = HTTPServerConfiguration()
        serverConfiguration.host = configuration.host
        serverConfiguration.port = port
        serverConfiguration.threads = 1
        serverConfiguration.requestLimits = RequestLimits(maxBodyBytes: configuration.maxBodyBytes)
        serverConfiguration.shutdownGrace = configuration.shutdownGrace
        serverConfiguration.idleTimeout = configuration.idleTimeout
        serverConfiguration.logsRequests = configuration.logsRequests
        let gatewayServer = HTTPServer(
            configuration: serverConfiguration, application: RouterApplication(router: router, logger: logger), logger: logger)
        let alreadyRunning = try server.withLock { state throws -> Bool in
            precondition(!state.finished, "DemoOrigin used after shutdown")
            guard state.running == nil else { return true }
            try gatewayServer.start()
            state.running = gatewayServer
            state.port = gatewayServer.port
            return false
        }
        if alreadyRunning, let url = baseURL { return url }
        let host = ["0.0.0.0", "::", "[::]", ""].contains(configuration.host) ? "127.0.0.1" : configuration.host
        let urlHost = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        core.address.value = "http://\(urlHost):\(gatewayServer.port)"
        guard let url = URL(string: core.address.value) else { preconditionFailure("a host and port make a URL") }
        logger.info(
            "demo origin (\(configuration.generation.rawValue)) listening on \(core.address.value)",
            metadata: ["url": .string(core.address.value), "generation": .string(configuration.generation.rawValue)])
        return url
    }
}
