import CEvent
import Dispatch
import Glibc
import Logging
import Synchronization

/// One request between evhttp's callback and its reply: the `ResponseSink` behind the
/// handler's `Responder`.
///
/// Invariant: `request` is used only on `front.loop`'s thread. `deliver` may be called from
/// any thread, once; the reply is always written on the loop, even when the client has
/// gone (libevent then frees the request itself).
final class ServerExchange: ResponseSink, @unchecked Sendable {
    /// Owned by libevent; valid until `write` hands it back with evhttp_send_reply.
    private var request: OpaquePointer?
    private let front: HTTPFront
    private let method: HTTPMethod
    private let path: String
    private let requestID: String
    private let acceptsGzip: Bool
    private let started: ContinuousClock.Instant
    private let delivered = Atomic<Bool>(false)
    /// The route label for metrics; set on the loop before the handler runs.
    var route = "malformed"

    init(
        request: OpaquePointer, front: HTTPFront, method: HTTPMethod, path: String, requestID: String,
        acceptsGzip: Bool, started: ContinuousClock.Instant
    ) {
        self.request = request
        self.front = front
        self.method = method
        self.path = path
        self.requestID = requestID
        self.acceptsGzip = acceptsGzip
        self.started = started
    }

    func deliver(_ response: GatewayResponse) {
        guard !delivered.exchange(true, ordering: .acquiringAndReleasing) else {
            assertionFailure("a handler answered \(method.rawValue) \(path) twice")
            front.core.logger.error("second reply ignored", metadata: ["request_id": .string(requestID)])
            return
        }
        var response = response
        response.headers.set(RequestID.headerName, requestID)
        let uncompressedBytes = response.body.count
        let compression = front.core.configuration.compression
        let compress = compression.prepare(&response, acceptsGzip: acceptsGzip)
        let loop = front.loop
        if compress && loop.inLoop && response.body.count >= front.core.configuration.offloadCompressionBytes {
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

    /// Writes the reply. On the loop thread, once.
    private func write(_ response: GatewayResponse, uncompressedBytes: Int) {
        guard let request else { return }
        self.request = nil
        let core = front.core
        if response.dropsConnection {
            Self.reset(request)
        }
        let headers = evhttp_request_get_output_headers(request)
        for field in response.headers where Self.isSafe(field) {
            evhttp_add_header(headers, field.name, field.value)
        }
        if core.draining.load(ordering: .relaxed) {
            evhttp_add_header(headers, "Connection", "close")
        }
        if method == .head {
            // evhttp sends no body for HEAD and then adds no Content-Length either; give the
            // length the GET would have.
            if !response.headers.contains("Content-Length") {
                evhttp_add_header(headers, "Content-Length", String(response.body.count))
            }
        } else if !response.body.isEmpty {
            response.body.withUnsafeBytes { bytes in
                _ = evbuffer_add(front.scratch, bytes.baseAddress, bytes.count)
            }
        }
        evhttp_send_reply(request, Int32(response.status), ReasonPhrase.for(response.status), front.scratch)
        // evhttp drains the buffer, except when the client has gone (it then frees the
        // request without touching the buffer): never let a body reach the next reply.
        evbuffer_drain(front.scratch, evbuffer_get_length(front.scratch))
        core.inFlight.subtract(1, ordering: .relaxed)
        let elapsed = ContinuousClock.now - started
        front.requestMetrics.record(
            route: route, method: method, status: response.status, duration: elapsed,
            sentBytes: method == .head ? 0 : response.body.count, uncompressedBytes: method == .head ? 0 : uncompressedBytes,
            gzip: response.headers.contains("Content-Encoding"))
        core.logger.info(
            "\(method.rawValue) \(path) \(response.status)",
            metadata: [
                "request_id": .string(requestID),
                "duration_ms": .string(Self.milliseconds(elapsed)),
            ])
    }

    /// Makes the reply that follows go nowhere: the socket is shut down (FIN) with a zero
    /// linger, so no byte of the reply leaves, libevent's write fails and it frees the
    /// connection itself, and the final close is a reset. The request is still "replied to",
    /// which is what releases it.
    private static func reset(_ request: OpaquePointer) {
        guard let connection = evhttp_request_get_connection(request),
            let bufferevent = evhttp_connection_get_bufferevent(connection)
        else { return }
        let fd = bufferevent_getfd(bufferevent)
        guard fd >= 0 else { return }
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Header fields a handler made that could split the response are dropped, not sent.
    private static func isSafe(_ field: HTTPHeaders.Field) -> Bool {
        !field.name.isEmpty && RequestFraming.isToken(field.name)
            && !field.value.utf8.contains(where: RequestFraming.isForbiddenInValue)
    }

    private static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        let whole = micros / 1000
        let fraction = micros % 1000
        return "\(whole)." + String(repeating: "0", count: 3 - String(fraction).count) + String(fraction)
    }
}
