import Dispatch
import HTTPInterface
import Logging
import Observability
import Synchronization
import GatewaySupport

/// One request between its connection and its answer: the `ResponseSink` behind the
/// handler's `Responder`.
///
/// `deliver` may be called from any thread, once; compression happens there (large bodies on
/// a global queue), and the answer is always written on the connection's loop, even when the
/// client has gone (the connection then drops it).
final class ServerExchange: ResponseSink, @unchecked Sendable {
    /// Touched only on the connection's loop thread.
    private let connection: any ExchangeConnection
    /// The HTTP/2 stream the request came on; 0 on HTTP/1.x.
    let stream: Int32
    let wireProtocol: WireProtocol
    let method: HTTPMethod
    private let path: String
    private let requestID: String
    /// The request's trace id: in problem bodies and the access log.
    private let traceID: String
    /// The peer, for the access log.
    private let client: String
    private let acceptsGzip: Bool
    private let started: ContinuousClock.Instant
    private let delivered = Atomic<Bool>(false)
    /// The route label for metrics; set on the loop before the handler runs.
    var route = "malformed"
    /// The budget this request spent, whose `RateLimit` fields the answer carries; set on
    /// the loop before the handler runs.
    var rateLimit: RateLimitFields?
    /// The verified bearer token's subject, for the access line's `user`; set on the loop
    /// before the handler runs, or by ``identify(user:)`` once a token waiting for keys is
    /// judged.
    var user: String?
    /// The request's trace and span fields when tracing records it; set on the loop before
    /// the handler runs.
    var recorded: RecordedRequest?

    init(
        connection: any ExchangeConnection, stream: Int32 = 0, wireProtocol: WireProtocol, method: HTTPMethod, path: String, requestID: String,
        traceID: String, acceptsGzip: Bool, started: ContinuousClock.Instant
    ) {
        self.connection = connection
        self.stream = stream
        self.wireProtocol = wireProtocol
        self.method = method
        self.path = path
        self.requestID = requestID
        self.traceID = traceID
        client = connection.peer
        self.acceptsGzip = acceptsGzip
        self.started = started
    }

    /// On the connection's loop (the routing application's resume runs there).
    func identify(user: String) {
        self.user = user
    }

    func deliver(_ response: GatewayResponse) {
        guard !delivered.exchange(true, ordering: .acquiringAndReleasing) else {
            assertionFailure("a handler answered \(method.rawValue) \(path) twice")
            connection.server.core.logger.error("second reply ignored", metadata: ["request_id": .string(requestID)], source: "Gateway")
            return
        }
        var response = response
        response.headers.set(RequestID.headerName, requestID)
        if response.headers["Content-Type"] == GatewayError.problemContentType {
            response.body = ProblemDetails.addingTraceID(traceID, to: response.body)
        }
        rateLimit?.set(on: &response)
        let uncompressedBytes = response.body.count
        let core = connection.server.core
        let compression = core.configuration.compression
        let compress = compression.prepare(&response, acceptsGzip: acceptsGzip)
        let loop = connection.server.loop
        if compress && loop.inLoop && response.body.count >= core.configuration.offloadCompressionBytes {
            // Large bodies are compressed off the loop; the reply hops back.
            let uncompressed = response
            DispatchQueue.global().async { [self] in
                var ready = uncompressed
                compression.compress(&ready)
                let compressed = ready
                loop.post { self.write(compressed, uncompressedBytes: uncompressedBytes) }
            }
            return
        }
        if compress { compression.compress(&response) }
        let ready = response
        loop.execute { self.write(ready, uncompressedBytes: uncompressedBytes) }
    }

    /// Writes the answer, records it and logs it. On the loop thread, once.
    private func write(_ response: GatewayResponse, uncompressedBytes: Int) {
        let server = connection.server
        let elapsed = ContinuousClock.now - started
        let sentBody = method != .head
        server.requestMetrics.record(
            route: route, method: method, wireProtocol: wireProtocol, status: response.status, duration: elapsed,
            sentBytes: sentBody ? response.body.count : 0, uncompressedBytes: sentBody ? uncompressedBytes : 0,
            gzip: response.headers.contains("Content-Encoding"))
        if server.core.logsRequests {
            Self.log(
                server.core.logger,
                AccessLine(
                    method: method, wireProtocol: wireProtocol, path: path, route: route, status: response.status,
                    bytes: sentBody ? response.body.count : 0,
                    cache: response.cacheOutcome?.rawValue, client: client, requestID: requestID, traceID: traceID,
                    user: user),
                elapsed: elapsed)
        }
        if let recorded {
            server.core.recordSpan(
                recorded, text: &server.spanText, method: method, path: path, route: route, status: response.status, wireProtocol: wireProtocol, peer: client,
                cache: response.cacheOutcome, rateLimit: rateLimit, user: user, requestID: requestID, elapsed: elapsed)
        }
        // Logged first: once the bytes are out, a client may act on the answer at once.
        connection.respond(response, exchange: self)
        server.core.inFlight.subtract(1, ordering: .relaxed)
    }

    /// Records and logs an answer the application gave from what it holds (no exchange was
    /// made for it), as `write` does for routed answers. On the loop thread.
    static func recordStored(
        server: ServerLoop, route: String, method: HTTPMethod, wireProtocol: WireProtocol, status: Int, started: ContinuousClock.Instant,
        bodyLength: Int, gzipOf: Int?,
        fromCache: Bool, path: @autoclosure () -> String, requestID: @autoclosure () -> String, traceID: @autoclosure () -> String,
        client: String, user: String?, recorded: RecordedStored? = nil, rateLimit: RateLimitFields? = nil
    ) {
        let elapsed = ContinuousClock.now - started
        server.requestMetrics.record(
            route: route, method: method, wireProtocol: wireProtocol, status: status, duration: elapsed, sentBytes: bodyLength,
            uncompressedBytes: bodyLength == 0 ? 0 : gzipOf ?? bodyLength, gzip: gzipOf != nil)
        if let recorded {
            server.core.recordSpan(
                recorded, text: &server.spanText, method: method, route: route, status: status, wireProtocol: wireProtocol, peer: client,
                fromCache: fromCache, rateLimit: rateLimit, user: user, elapsed: elapsed)
        }
        let logger = server.core.logger
        guard server.core.logsRequests, logger.logLevel <= .info else { return }
        log(
            logger,
            AccessLine(
                method: method, wireProtocol: wireProtocol, path: path(), route: route, status: status, bytes: bodyLength, cache: fromCache ? "hit" : nil,
                client: client, requestID: requestID(), traceID: traceID(), user: user),
            elapsed: elapsed)
    }

    /// The access-log line of one answer (at `info`).
    static func log(_ logger: Logger, _ line: AccessLine, elapsed: Duration) {
        guard logger.logLevel <= .info else { return }
        line.log(to: logger, elapsed: elapsed)
    }
}
