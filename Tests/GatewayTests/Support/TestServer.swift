import Foundation
@testable import Gateway
@testable import GatewayRuntime
@testable import HTTPInterface
import Logging
@testable import Observability
@testable import Routing

/// A real gateway server on 127.0.0.1 and a free port, for integration tests.
struct TestServer {
    let server: GatewayServer
    var port: Int { server.port }

    /// Starts `router` (the gateway's own routes when nil) with `configure` applied to a
    /// loopback configuration, runs `body`, and shuts the server down whatever happens.
    static func with<T>(
        router: Router? = nil, metrics: GatewayMetrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets), threads: Int = 2,
        configure: (inout GatewayConfiguration) -> Void = { _ in },
        _ body: (TestServer) async throws -> T
    ) async throws -> T {
        var configuration = GatewayConfiguration.loopback(threads: threads)
        configuration.shutdownGrace = .seconds(5)
        configure(&configuration)
        var logger = Logger(label: "test-gateway")
        logger.logLevel = .warning
        let server = GatewayServer(
            configuration: configuration, router: router ?? GatewayApplication.router(metrics: metrics), logger: logger,
            metrics: metrics)
        try server.start()
        defer { server.shutdown() }
        return try await body(TestServer(server: server))
    }

}

/// Routes the transport tests need besides the gateway's own.
enum TestRoutes {
    static func router(metrics: GatewayMetrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)) -> Router {
        var router = GatewayApplication.router(metrics: metrics)
        router.add(.post, "/echo", .immediate { request, _ in
            GatewayResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: request.body)
        })
        router.add(.patch, "/items/{id}", .immediate { request, context in
            GatewayResponse.json(Array("{\"patched\":\"\(context.parameters["id"] ?? "")\"}".utf8))
        })
        router.add(.get, "/big", .immediate { request, _ in
            let size = Int(request.queryValue("size") ?? "") ?? 4096
            return GatewayResponse.json(TestRoutes.jsonBody(size: size))
        })
        router.add(.get, "/async", .async { _, _ in
            try await Task.sleep(for: .milliseconds(20))
            return GatewayResponse.json(Array("{\"async\":true}".utf8))
        })
        router.add(.get, "/deferred", .deferred { _, _, responder in
            Thread.detachNewThread {
                responder.send(GatewayResponse.json(Array("{\"deferred\":true}".utf8)))
            }
        })
        router.add(.get, "/slow", .async { request, _ in
            let milliseconds = Int(request.queryValue("ms") ?? "") ?? 300
            try await Task.sleep(for: .milliseconds(milliseconds))
            return GatewayResponse.json(Array("{\"slow\":\(milliseconds)}".utf8))
        })
        router.add(.get, "/drop", .immediate { _, _ in .droppedConnection })
        // Holds its loop for `ms` milliseconds (default 200): what arrives meanwhile is handled
        // only after it, all at once.
        router.add(.get, "/block", .immediate { request, _ in
            Thread.sleep(forTimeInterval: Double(Int(request.queryValue("ms") ?? "") ?? 200) / 1000)
            return GatewayResponse.json(Array("{\"blocked\":true}".utf8))
        })
        router.add(.get, "/fails", .immediate { _, _ in
            throw GatewayError.badGateway("The origin answered 500.")
        })
        return router
    }

    /// A JSON document of exactly `size` bytes: `{"data":"xxxx…"}`.
    /// Filler byte `i` is `a` + i mod 26. Built by copying whole alphabets, so that even a
    /// sanitizer build makes megabytes quickly (tests that time a stalled client rely on the
    /// server filling the socket at once).
    static func jsonBody(size: Int) -> [UInt8] {
        let head = Array("{\"data\":\"".utf8)
        let tail = Array("\"}".utf8)
        let end = head.count + max(0, size - head.count - tail.count)
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        var body = head
        body.reserveCapacity(end + tail.count)
        while body.count < end { body.append(contentsOf: alphabet.prefix(end - body.count)) }
        return body + tail
    }
}
