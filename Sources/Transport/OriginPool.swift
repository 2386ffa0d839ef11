import BodyCompression
import CEvent
import COpenSSL
import HTTPInterface
import Observability
import GatewaySupport
import Tracing

/// The keep-alive connections to one origin on one loop, run by an `OriginPoolState`.
///
/// Invariant: created, used and closed on `loop`'s thread. Requests complete on that thread.
final class OriginPool {
    let endpoint: OriginEndpoint
    let loop: EventLoop
    let dns: OpaquePointer?
    let tls: TLSContext?
    let metrics: GatewayMetrics?
    /// Records a client span for each request whose trace is recorded; nil without tracing.
    let tracer: Tracer?
    let configuration: OriginClientConfiguration
    var state: OriginPoolState
    var connections: [OriginPoolState.ConnectionID: OriginConnection] = [:]
    var waiters: [OriginPoolState.WaiterID: OriginExchange] = [:]
    /// Every exchange not finished yet; holds them alive for libevent's callbacks.
    var exchanges: [ObjectIdentifier: OriginExchange] = [:]
    var expiryTimer: OpaquePointer?

    init(
        endpoint: OriginEndpoint, loop: EventLoop, dns: OpaquePointer?, tls: TLSContext?, metrics: GatewayMetrics?, tracer: Tracer? = nil,
        configuration: OriginClientConfiguration
    ) {
        self.tracer = tracer
        self.endpoint = endpoint
        self.loop = loop
        self.dns = dns
        self.tls = tls
        self.metrics = metrics
        self.configuration = configuration
        state = OriginPoolState(
            configuration: .init(
                maxConnections: configuration.maxConnectionsPerLoop, maxWaiters: configuration.maxWaitersPerLoop,
                idleTimeout: configuration.idleTimeout))
        // Unmanaged: passUnretained. The timer is freed in close(), before the pool goes.
        expiryTimer = event_new(loop.base, -1, Int16(EV_PERSIST), originPoolExpiryCallback, Unmanaged.passUnretained(self).toOpaque())
        var interval = timeval(max(.seconds(1), configuration.idleTimeout / 2))
        event_add(expiryTimer, &interval)
    }

    var openConnections: Int { state.openConnections }

    /// No connection, no waiter, no exchange: the pool can be closed and forgotten.
    var isIdle: Bool { state.openConnections == 0 && waiters.isEmpty && exchanges.isEmpty }

    /// Sends `request`; `completion` runs on the loop thread exactly once.
    func send(_ request: OriginRequest, completion: @escaping (Result<OriginResponse, OriginFailure>) -> Void) {
        let exchange = OriginExchange(request: request, completion: completion)
        exchange.pool = self
        if tracer != nil, request.trace?.isRecorded == true { exchange.clientSpanID = TraceContext.newSpanID() }
        exchanges[ObjectIdentifier(exchange)] = exchange
        exchange.deadlineTimer = startTimer(after: configuration.requestTimeout, for: exchange, callback: originDeadlineCallback)
        lease(for: exchange)
    }

    func lease(for exchange: OriginExchange) {
        switch state.lease() {
        case .use(let id):
            run(exchange, on: connections[id]!)
        case .open(let id):
            start(exchange, onNew: id)
        case .wait(let waiter):
            exchange.waiterID = waiter
            waiters[waiter] = exchange
        case .refuse:
            complete(exchange, .failure(.overloaded))
        }
    }

    /// Opens connection `id` and runs `exchange` on it; when the connection cannot even be
    /// set up (no TLS context for https, OpenSSL out of memory), the exchange fails.
    func start(_ exchange: OriginExchange, onNew id: OriginPoolState.ConnectionID) {
        if let connection = open(id) {
            run(exchange, on: connection)
            return
        }
        if case .closeAndOpen(_, let replacement, let waiter) = state.release(id, reusable: false, now: .now),
            let next = waiters.removeValue(forKey: waiter)
        {
            next.waiterID = nil
            start(next, onNew: replacement)
        }
        complete(exchange, .failure(.connectFailed(tls == nil ? "https needs a TLS context" : "cannot set up TLS")))
    }

    func open(_ id: OriginPoolState.ConnectionID) -> OriginConnection? {
        // evhttp resolves through `dns` without blocking; OriginClient always passes one.
        let evcon: OpaquePointer
        // A numeric connect address needs no lookup; the name stays in Host, SNI and the
        // certificate check.
        let address = endpoint.connectAddress ?? endpoint.host
        switch endpoint.scheme {
        case .http:
            guard let plain = evhttp_connection_base_new(loop.base, dns, address, UInt16(endpoint.port)) else { return nil }
            evcon = plain
        case .https:
            guard let tls, let ssl = tls.makeClientSSL(host: endpoint.host) else { return nil }
            let options = Int32(BEV_OPT_CLOSE_ON_FREE.rawValue | BEV_OPT_DEFER_CALLBACKS.rawValue)
            // The bufferevent owns `ssl` from here (BEV_OPT_CLOSE_ON_FREE frees it).
            guard let bufferevent = bufferevent_openssl_socket_new(loop.base, -1, ssl, BUFFEREVENT_SSL_CONNECTING, options) else {
                SSL_free(ssl)
                return nil
            }
            // Origins often close TLS without close_notify; that is not an error here.
            bufferevent_openssl_set_allow_dirty_shutdown(bufferevent, 1)
            guard let secure = evhttp_connection_base_bufferevent_new(loop.base, dns, bufferevent, address, UInt16(endpoint.port))
            else {
                bufferevent_free(bufferevent)
                return nil
            }
            evcon = secure
        }
        // libevent's own timeout bounds connecting and every wait for the socket; ours (the
        // deadline) is shorter overall, so the failure we report is the deadline's.
        var timeout = timeval(configuration.requestTimeout + .seconds(1))
        evhttp_connection_set_timeout_tv(evcon, &timeout)
        evhttp_connection_set_max_body_size(evcon, Int(configuration.maxResponseBytes))
        // Bounded like the server's side: an origin (or an image host) cannot stream headers.
        evhttp_connection_set_max_headers_size(evcon, 64 * 1024)
        evhttp_connection_set_retries(evcon, 0)
        let connection = OriginConnection(id: id, evcon: evcon)
        connections[id] = connection
        // Unmanaged: passUnretained. The close callback is cleared before the connection is
        // freed (see close(_:)), and the pool keeps the connection in `connections` until then.
        connection.pool = self
        evhttp_connection_set_closecb(evcon, originConnectionClosedCallback, Unmanaged.passUnretained(connection).toOpaque())
        return connection
    }

    func run(_ exchange: OriginExchange, on connection: OriginConnection) {
        exchange.connection = connection
        exchange.connectionWasReused = connection.served > 0
        exchange.error = nil
        exchange.headersReceived = false
        let context = Unmanaged.passUnretained(exchange).toOpaque()
        guard let request = evhttp_request_new(originRequestCallback, context) else {
            release(connection, reusable: false)
            complete(exchange, .failure(.connectFailed("cannot create a request")))
            return
        }
        evhttp_request_set_error_cb(request, originRequestErrorCallback)
        evhttp_request_set_header_cb(request, originResponseHeaderCallback)
        let headers = evhttp_request_get_output_headers(request)
        evhttp_add_header(headers, "Host", endpoint.hostHeader)
        evhttp_add_header(headers, "Accept-Encoding", "gzip")
        evhttp_add_header(headers, "User-Agent", "open-market-gateway")
        evhttp_add_header(headers, RequestID.headerName, exchange.request.requestID)
        if let trace = exchange.request.trace, exchange.request.propagatesTrace {
            // The client span's id when it is recorded; else under the server span, or a new
            // span id under the client's.
            evhttp_add_header(headers, "traceparent", exchange.clientSpanID.map { trace.traceparent(spanID: $0) } ?? trace.outgoingTraceparent)
            if let state = trace.state { evhttp_add_header(headers, "tracestate", state) }
        }
        for field in exchange.request.headers where !Self.managedHeaders.contains(where: { HTTPHeaders.sameName($0, field.name) }) {
            evhttp_add_header(headers, field.name, field.value)
        }
        if !exchange.request.body.isEmpty || exchange.request.method == .post || exchange.request.method == .put
            || exchange.request.method == .patch
        {
            evhttp_add_header(headers, "Content-Length", String(exchange.request.body.count))
            exchange.request.body.withUnsafeBytes { bytes in
                _ = evbuffer_add(evhttp_request_get_output_buffer(request), bytes.baseAddress, bytes.count)
            }
        }
        if connection.served == 0 && !connection.isConnected {
            exchange.connectTimer = startTimer(after: configuration.connectTimeout, for: exchange, callback: originConnectCallback)
        }
        // Per request: image fetches ask for a smaller limit than the client's.
        evhttp_connection_set_max_body_size(connection.evcon, Int(maxBytes(exchange)))
        let target = endpoint.basePath + exchange.request.target
        // Set before the call: libevent may run the request callback (which clears it) inside
        // evhttp_make_request and still return 0, and the pointer is invalid after that.
        exchange.pending = request
        guard evhttp_make_request(connection.evcon, request, Self.command(exchange.request.method), target) == 0 else {
            // libevent has freed the request; no callback will come.
            exchange.pending = nil
            exchange.stopTimer(&exchange.connectTimer)
            release(connection, reusable: false)
            complete(exchange, .failure(.connectFailed("cannot start the request")))
            return
        }
    }

    func maxBytes(_ exchange: OriginExchange) -> Int {
        exchange.request.maxResponseBytes ?? configuration.maxResponseBytes
    }

    /// Headers the client sets itself; a caller's copies are not sent.
    static let managedHeaders = ["Host", "Accept-Encoding", "User-Agent", "Content-Length", "Transfer-Encoding", "Connection", RequestID.headerName, "traceparent", "tracestate"]

    static func command(_ method: HTTPMethod) -> evhttp_cmd_type {
        switch method {
        case .get: EVHTTP_REQ_GET
        case .head: EVHTTP_REQ_HEAD
        case .post: EVHTTP_REQ_POST
        case .put: EVHTTP_REQ_PUT
        case .patch: EVHTTP_REQ_PATCH
        case .delete: EVHTTP_REQ_DELETE
        case .options: EVHTTP_REQ_OPTIONS
        case .trace: EVHTTP_REQ_TRACE
        case .connect: EVHTTP_REQ_CONNECT
        }
    }
}
