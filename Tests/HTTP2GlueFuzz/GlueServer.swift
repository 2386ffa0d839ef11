import Foundation
import GatewayModels
import HTTPCodec
import HTTPInterface
import Logging
import Observability
import Routing
import Transport

/// The server the fuzz target talks to: the gateway's own transport (`HTTPServer`: its loop,
/// its HTTP/2 connections over nghttp2, its stored-answer and responder paths) running a
/// `RouterApplication` whose routes answer in every way the gateway's routes do, on
/// 127.0.0.1, one loop, started once per process and never stopped.
///
/// Routes (`GlueServer.paths` lists them for the input decoder):
/// - `GET /stored`, `GET /stored/{id}`: answered from stored bytes on the loop (20,000 bytes,
///   more than a frame); `/stored/miss` declines and the ordinary handler answers;
/// - `GET /small`: immediate JSON; `GET /big?size=N`: immediate, up to 1 MiB (flow control,
///   the output bound); `GET /text`: compressible, gzip when accepted;
/// - `POST /echo`, `PUT /echo`: the request body back (the body limit is 16 KiB: 413 past it);
/// - `GET /async`: from a task; `GET /deferred`: from another thread a moment later (answers
///   that arrive after their stream or connection has gone);
/// - `GET /throws`: the handler throws (a problem answer);
/// - `GET /hop`: the handler sets fields HTTP/2 does not carry (`Connection`, `Keep-Alive`,
///   `Transfer-Encoding`, `Upgrade`), which the transport must leave out.
enum GlueServer {
    static let storedBody = [UInt8]((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    static let storedFields = StoredFields(
        status: 200, fields: [("Content-Type", "application/octet-stream"), ("Cache-Control", "public, max-age=60"), ("ETag", "\"s1\"")])
    static let textBody = Array(String(repeating: "{\"name\":\"open market\",\"price\":1000}", count: 200).utf8)

    /// The paths a request may name; the decoder appends bytes of the input to some.
    static let paths = [
        "/stored", "/stored/7", "/stored/miss", "/small", "/big?size=", "/text", "/echo", "/async", "/deferred", "/throws", "/nowhere",
        "*", "/stored?x=", "/%2e%2e/stored", "/hop",
    ]

    /// The port the server listens on.
    static var port: Int { server.port }

    /// Started on first use (``GlueFuzzMain`` uses it before the first input); kept for the
    /// life of the process.
    static let server: HTTPServer = {
        var configuration = HTTPServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.threads = 1
        configuration.http2 = HTTP2Configuration(enabled: true, maxConcurrentStreams: 16)
        configuration.requestLimits = RequestLimits(maxHeadBytes: 8 * 1024, maxTargetBytes: 2048, maxFieldCount: 50, maxBodyBytes: 16 * 1024)
        configuration.headerTimeout = .seconds(2)
        configuration.bodyTimeout = .seconds(2)
        configuration.writeTimeout = .seconds(2)
        configuration.idleTimeout = .seconds(5)
        configuration.maxOutputBytes = 256 * 1024
        configuration.shutdownGrace = .seconds(1)
        var logger = Logger(label: "http2-glue-fuzz")
        logger.logLevel = .critical
        let application = RouterApplication(router: router(), logger: logger)
        let server = HTTPServer(configuration: configuration, application: application, logger: logger)
        do {
            try server.start()
        } catch {
            fatalError("http2-glue-fuzz: the server did not start: \(error)")
        }
        return server
    }()

    static func router() -> Router {
        var router = Router()
        let storedAnswer: StoredRoute.Handler = { _, id, answer in
            if id.elementsEqual("miss".utf8) { return false }
            answer.append(storedFields)
            answer.body = storedBody
            answer.fromCache = true
            return true
        }
        let stored = RouteHandler.immediate { _, _ in
            GatewayResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: storedBody)
        }
        router.add(.get, "/stored", stored: storedAnswer, stored)
        router.add(.get, "/stored/{id}", stored: storedAnswer, stored)
        router.add(.get, "/small", .immediate { _, _ in GatewayResponse.json(Array(#"{"ok":true}"#.utf8)) })
        router.add(.get, "/big", .immediate { request, _ in
            let size = min(max(Int(request.queryValue("size") ?? "") ?? 4096, 0), 1 << 20)
            return GatewayResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: [UInt8](repeating: 0x61, count: size))
        })
        router.add(.get, "/text", .immediate { _, _ in
            GatewayResponse(status: 200, headers: ["Content-Type": "application/json"], body: textBody)
        })
        let echo = RouteHandler.immediate { request, _ in
            GatewayResponse(status: 200, headers: ["Content-Type": "application/octet-stream"], body: request.body)
        }
        router.add(.post, "/echo", echo)
        router.add(.put, "/echo", echo)
        router.add(.get, "/async", .async { _, _ in
            try await Task.sleep(for: .milliseconds(1))
            return GatewayResponse.json(Array(#"{"async":true}"#.utf8))
        })
        router.add(.get, "/deferred", .deferred { _, _, responder in
            Thread.detachNewThread {
                usleep(2000)
                responder.send(GatewayResponse.json(Array(#"{"deferred":true}"#.utf8)))
            }
        })
        router.add(.get, "/throws", .immediate { _, _ in throw GlueFailure() })
        router.add(.get, "/hop", .immediate { _, _ in
            var response = GatewayResponse.json(Array(#"{"hop":true}"#.utf8))
            for (name, value) in [("Connection", "keep-alive"), ("Keep-Alive", "timeout=5"), ("Transfer-Encoding", "chunked"), ("Upgrade", "h2c")] {
                response.headers.set(name, value)
            }
            return response
        })
        return router
    }

    struct GlueFailure: Error {}
}
