import CEvent
import Logging

/// One loop's evhttp: its listening socket, every limit set explicitly, and the request
/// callback that turns each `evhttp_request` into a `GatewayRequest` for the router.
///
/// Invariant: created before its loop starts, then used only on `loop`'s thread.
final class HTTPFront: @unchecked Sendable {
    let loop: EventLoop
    let core: ServerCore
    /// Owned by this front; freed in `free()` on the loop thread or after the loop ended.
    private var http: OpaquePointer?
    /// The listener evhttp made from our socket; evhttp closes the socket when it goes.
    private var boundSocket: OpaquePointer?
    /// A reusable buffer for reply bodies; evhttp_send_reply drains it every time.
    let scratch: OpaquePointer
    /// Scans each connection's input for NULs in request heads before evhttp parses it.
    let inputGuard = ConnectionInputGuard()
    /// This loop's request metric handles.
    let requestMetrics: RequestMetrics
    /// This loop's client for the origin, when the gateway has one.
    let originClient: OriginClient?

    static let allowedMethods: UInt16 = {
        let all: [evhttp_cmd_type] = [
            EVHTTP_REQ_GET, EVHTTP_REQ_HEAD, EVHTTP_REQ_POST, EVHTTP_REQ_PUT, EVHTTP_REQ_PATCH,
            EVHTTP_REQ_DELETE, EVHTTP_REQ_OPTIONS, EVHTTP_REQ_TRACE, EVHTTP_REQ_CONNECT,
        ]
        return UInt16(all.reduce(0) { $0 | $1.rawValue })
    }()

    /// Sets up evhttp on `loop` and starts accepting on `socket` (already listening).
    init(loop: EventLoop, core: ServerCore, socket: Int32, originTLS: TLSContext?) throws(TransportError) {
        self.loop = loop
        self.core = core
        requestMetrics = RequestMetrics(metrics: core.metrics)
        originClient = core.configuration.origin == nil
            ? nil : OriginClient(loop: loop, configuration: core.configuration.originClient, tls: originTLS, metrics: core.metrics)
        guard let http = evhttp_new(loop.base), let scratch = evbuffer_new() else {
            throw TransportError("evhttp_new failed")
        }
        self.http = http
        self.scratch = scratch
        let configuration = core.configuration
        // libevent's default lets only GET POST HEAD PUT DELETE through and answers PATCH
        // and OPTIONS with 501; the router decides 405 instead.
        evhttp_set_allowed_methods(http, Self.allowedMethods)
        evhttp_set_max_headers_size(http, Int(configuration.maxHeaderBytes))
        evhttp_set_max_body_size(http, Int(configuration.maxBodyBytes))
        var timeout = timeval(configuration.idleTimeout)
        evhttp_set_timeout_tv(http, &timeout)
        // No "text/html; charset=ISO-8859-1" on responses that set no type.
        evhttp_set_default_content_type(http, nil)
        // On an oversized body, read and discard it before answering 413, so the client
        // sees the answer instead of a reset.
        evhttp_set_flags(http, Int32(EVHTTP_SERVER_LINGERING_CLOSE))
        // Unmanaged: passUnretained, for both callbacks. The GatewayServer keeps this front
        // alive until the loop has ended and evhttp is freed, so the pointer stays valid.
        let context = Unmanaged.passUnretained(self).toOpaque()
        evhttp_set_gencb(http, httpRequestCallback, context)
        evhttp_set_bevcb(http, connectionBuffereventCallback, context)
        guard let bound = evhttp_accept_socket_with_handle(http, socket) else {
            throw TransportError("evhttp_accept_socket failed")
        }
        boundSocket = bound
    }

    /// Stops accepting new connections; open ones keep being served. On the loop thread.
    func stopAccepting() {
        guard let http, let boundSocket else { return }
        evhttp_del_accept_socket(http, boundSocket)
        self.boundSocket = nil
    }

    /// Frees evhttp and every connection it holds. Only with no request in flight, and only
    /// on the loop thread or after the loop has ended.
    func free() {
        originClient?.close()
        if let http { evhttp_free(http) }
        http = nil
        evbuffer_free(scratch)
    }

    /// Reads one complete request and hands it to the router. On the loop thread, from
    /// evhttp, after the whole body was buffered. Whatever happens, exactly one reply goes
    /// out through the exchange.
    fileprivate func handle(_ request: OpaquePointer) {
        let started = ContinuousClock.now
        let headers = EvhttpInput.headers(of: request)
        let requestID = RequestID.accept(headers[RequestID.headerName])
        let method = Self.method(of: request)
        let (path, query) = Self.target(of: request)
        let exchange = ServerExchange(
            request: request, front: self, method: method ?? .get, path: path, requestID: requestID,
            acceptsGzip: AcceptEncoding.allowsGzip(headers["Accept-Encoding"]), started: started)
        core.inFlight.add(1, ordering: .relaxed)
        let responder = Responder(sink: exchange, requestID: requestID)
        if let problem = RequestFraming.problem(in: headers, method: method)
            ?? (inputGuard.lostFraming(of: request) ? "The request stream could not be followed." : nil)
        {
            responder.fail(GatewayError.malformedRequest(problem))
            return
        }
        guard let method else {
            responder.fail(GatewayError(status: 501, detail: "This method is not supported."))
            return
        }
        let body = EvhttpInput.body(of: request)
        let gatewayRequest = GatewayRequest(
            method: method, path: path, query: query, headers: headers, body: body, requestID: requestID,
            peer: Self.peer(of: request))
        let resolution = core.router.resolve(gatewayRequest)
        exchange.route = resolution.label
        resolution.run(gatewayRequest, logger: core.logger, origin: originClient, responder: responder)
    }

    private static func method(of request: OpaquePointer) -> HTTPMethod? {
        switch evhttp_request_get_command(request) {
        case EVHTTP_REQ_GET: .get
        case EVHTTP_REQ_HEAD: .head
        case EVHTTP_REQ_POST: .post
        case EVHTTP_REQ_PUT: .put
        case EVHTTP_REQ_PATCH: .patch
        case EVHTTP_REQ_DELETE: .delete
        case EVHTTP_REQ_OPTIONS: .options
        case EVHTTP_REQ_TRACE: .trace
        case EVHTTP_REQ_CONNECT: .connect
        default: nil
        }
    }

    /// The path (still percent-encoded) and raw query of the request target.
    private static func target(of request: OpaquePointer) -> (String, String?) {
        guard let uri = evhttp_request_get_evhttp_uri(request) else { return ("/", nil) }
        let path = evhttp_uri_get_path(uri).map { String(cString: $0) } ?? "/"
        let query = evhttp_uri_get_query(uri).map { String(cString: $0) }
        return (path.isEmpty ? "/" : path, query)
    }

    private static func peer(of request: OpaquePointer) -> String? {
        guard let connection = evhttp_request_get_connection(request) else { return nil }
        var address: UnsafeMutablePointer<CChar>?
        var port: UInt16 = 0
        evhttp_connection_get_peer(connection, &address, &port)
        guard let address else { return nil }
        return "\(String(cString: address)):\(port)"
    }
}

/// evhttp's request callback, on the loop thread. `context` is the HTTPFront, unretained
/// (see HTTPFront.init). libevent owns `request` until the exchange replies.
private func httpRequestCallback(_ request: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    guard let request, let context else { return }
    Unmanaged<HTTPFront>.fromOpaque(context).takeUnretainedValue().handle(request)
}
