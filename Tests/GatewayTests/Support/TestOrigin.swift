import BodyCompression
import Foundation
@testable import Gateway
import GatewayModels
@testable import GatewayRuntime
@testable import HTTPInterface
import Logging
@testable import Observability
@testable import Routing
@testable import Transport
import GatewaySupport

/// An origin for the origin client's tests: a real server on 127.0.0.1 whose routes echo
/// what arrived, answer slowly, gzip, or drop the connection, and count every request.
final class TestOrigin: Sendable {
    let server: GatewayServer
    private let hits = HitCounter()

    /// Requests seen, by "METHOD /path".
    final class HitCounter: Sendable {
        private let counts = Locked<[String: Int]>([:])
        func record(_ request: GatewayRequest) { counts.withLock { $0["\(request.method.rawValue) \(request.path)", default: 0] += 1 } }
        func count(_ key: String) -> Int { counts.withLock { $0[key, default: 0] } }
    }

    init(tls: TLSConfiguration? = nil) throws {
        var configuration = GatewayConfiguration.loopback()
        configuration.tls = tls
        configuration.compression.minimumBytes = .max
        var router = Router()
        let hits = self.hits
        @Sendable func count(_ request: GatewayRequest) { hits.record(request) }
        router.add(.get, "/items/{page}", .immediate { request, context in
            count(request)
            var response = GatewayResponse.json(Array("{\"page\":\(context.parameters["page"]!)}".utf8))
            response.headers.add("X-Seen-Host", request.headers["Host"] ?? "")
            response.headers.add("X-Seen-Request-ID", request.headers["X-Request-ID"] ?? "")
            response.headers.add("X-Seen-Accept-Encoding", request.headers["Accept-Encoding"] ?? "")
            response.headers.add("X-Seen-Custom", request.headers["X-Custom"] ?? "")
            response.headers.add("X-Seen-Traceparent", request.headers["traceparent"] ?? "")
            response.headers.add("X-Peer", request.peer ?? "")
            return response
        })
        router.add(.get, "/gzipped", .immediate { request, _ in
            count(request)
            var response = GatewayResponse.json(TestRoutes.jsonBody(size: 10_000))
            response.body = Gzip.compress(response.body)
            response.headers.set("Content-Encoding", "gzip")
            return response
        })
        router.add(.get, "/corrupt-gzip", .immediate { request, _ in
            count(request)
            return GatewayResponse(status: 200, headers: ["Content-Encoding": "gzip"], body: [0x1F, 0x8B, 8, 0, 1, 2, 3])
        })
        for method in [HTTPMethod.post, .patch, .delete] {
            router.add(method, "/echo", .immediate { request, _ in
                count(request)
                var response = GatewayResponse(status: 201, headers: ["Content-Type": "application/octet-stream"], body: request.body)
                response.headers.add("X-Seen-Method", request.method.rawValue)
                response.headers.add("X-Seen-Content-Type", request.headers["Content-Type"] ?? "")
                return response
            })
        }
        router.add(.get, "/slow", .async { request, _ in
            count(request)
            try await Task.sleep(for: .milliseconds(Int(request.queryValue("ms") ?? "") ?? 500))
            return GatewayResponse.json(Array("{\"slow\":true}".utf8))
        })
        router.add(.get, "/big", .immediate { request, _ in
            count(request)
            return GatewayResponse.json(TestRoutes.jsonBody(size: Int(request.queryValue("size") ?? "") ?? 1000))
        })
        router.add(.get, "/drop", .immediate { request, _ in
            count(request)
            return .droppedConnection
        })
        router.add(.post, "/drop", .immediate { request, _ in
            count(request)
            return .droppedConnection
        })
        var logger = Logger(label: "test-origin")
        logger.logLevel = .critical
        server = GatewayServer(configuration: configuration, router: router, logger: logger)
        try server.start()
    }

    var endpoint: OriginEndpoint { try! OriginEndpoint(url: "http://127.0.0.1:\(server.port)") }

    /// The https endpoint at `host` (a name or address the certificate must carry).
    func secureEndpoint(host: String) -> OriginEndpoint { try! OriginEndpoint(url: "https://\(host):\(server.port)") }

    func hits(_ key: String) -> Int { hits.count(key) }

    func shutdown() { server.shutdown() }
}

/// An origin client on a loop of its own.
final class TestOriginClient: Sendable {
    let loop: EventLoop
    let client: OriginClient

    init(tls: TLSContext? = nil, metrics: GatewayMetrics? = nil, _ configure: (inout OriginClientConfiguration) -> Void = { _ in }) throws {
        var configuration = OriginClientConfiguration()
        configure(&configuration)
        loop = try EventLoop(name: "test-origin-client")
        client = OriginClient(loop: loop, configuration: configuration, tls: tls, metrics: metrics)
        loop.start()
    }

    func get(_ target: String, from endpoint: OriginEndpoint, headers: HTTPHeaders = [:]) async -> Result<OriginResponse, OriginFailure> {
        await client.send(OriginRequest(method: .get, target: target, headers: headers, requestID: "test-\(target)"), to: endpoint)
    }

    func openConnections(to endpoint: OriginEndpoint) async -> Int {
        await withCheckedContinuation { continuation in
            loop.post { continuation.resume(returning: self.client.openConnections(to: endpoint)) }
        }
    }

    func shutdown() {
        let client = self.client
        loop.post { client.close() }
        loop.stop()
        loop.join()
    }
}
