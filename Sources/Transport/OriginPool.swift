import BodyCompression
import CLibevent
import COpenSSL
import GatewayModels
import HTTPInterface
import Observability

/// The keep-alive connections to one origin on one loop, run by an `OriginPoolState`.
///
/// Invariant: created, used and closed on `loop`'s thread. Requests complete on that thread.
final class OriginPool {
    let endpoint: OriginEndpoint
    private let loop: EventLoop
    private let dns: OpaquePointer?
    private let tls: TLSContext?
    private let metrics: GatewayMetrics?
    private let configuration: OriginClientConfiguration
    private var state: OriginPoolState
    private var connections: [OriginPoolState.ConnectionID: OriginConnection] = [:]
    private var waiters: [OriginPoolState.WaiterID: OriginExchange] = [:]
    /// Every exchange not finished yet; holds them alive for libevent's callbacks.
    private var exchanges: [ObjectIdentifier: OriginExchange] = [:]
    private var expiryTimer: OpaquePointer?

    init(
        endpoint: OriginEndpoint, loop: EventLoop, dns: OpaquePointer?, tls: TLSContext?, metrics: GatewayMetrics?,
        configuration: OriginClientConfiguration
    ) {
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
        exchanges[ObjectIdentifier(exchange)] = exchange
        exchange.deadlineTimer = startTimer(after: configuration.requestTimeout, for: exchange, callback: originDeadlineCallback)
        lease(for: exchange)
    }

    private func lease(for exchange: OriginExchange) {
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
    private func start(_ exchange: OriginExchange, onNew id: OriginPoolState.ConnectionID) {
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

    private func open(_ id: OriginPoolState.ConnectionID) -> OriginConnection? {
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

    private func run(_ exchange: OriginExchange, on connection: OriginConnection) {
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
        if let trace = exchange.request.trace {
            // A span of its own for each exchange, under the client's trace.
            evhttp_add_header(headers, "traceparent", trace.traceparent(spanID: TraceContext.newSpanID()))
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

    private func maxBytes(_ exchange: OriginExchange) -> Int {
        exchange.request.maxResponseBytes ?? configuration.maxResponseBytes
    }

    /// Headers the client sets itself; a caller's copies are not sent.
    private static let managedHeaders = ["Host", "Accept-Encoding", "User-Agent", "Content-Length", "Transfer-Encoding", "Connection", RequestID.headerName, "traceparent", "tracestate"]

    private static func command(_ method: HTTPMethod) -> evhttp_cmd_type {
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

    // MARK: libevent callbacks, on the loop thread

    /// The request finished (`request` non-nil with a status) or failed.
    fileprivate func requestFinished(_ exchange: OriginExchange, _ request: OpaquePointer?) {
        exchange.pending = nil
        exchange.stopTimer(&exchange.connectTimer)
        guard let connection = exchange.connection else { return }
        exchange.connection = nil
        connection.served += 1
        guard let request, evhttp_request_get_response_code(request) != 0 else {
            var failure = Self.failure(for: exchange.error, freshConnection: !exchange.connectionWasReused, maxBytes: maxBytes(exchange))
            if let reason = connection.tlsFailure() { failure = .connectFailed("TLS: \(reason)") }
            release(connection, reusable: false)
            if exchange.attempt == 0 && exchange.request.isIdempotent && exchange.connectionWasReused
                && !exchange.headersReceived && failure == .connectionLost
            {
                exchange.attempt = 1
                lease(for: exchange)
            } else {
                complete(exchange, .failure(failure))
            }
            return
        }
        let result = Self.response(from: request, maxBytes: maxBytes(exchange))
        // After `Connection: close` evhttp would reconnect this connection for the next
        // request, reusing its SSL object, which fails (libevent#975): use a new one instead.
        let closing = (try? result.get())?.headers["Connection"].map { HTTPHeaders.sameName($0.trimmingSpaces(), "close") } ?? false
        release(connection, reusable: !closing)
        complete(exchange, result)
    }

    /// What a failed request means. libevent 2.1 calls no error callback when it cannot
    /// resolve or connect (`error` stays nil); EOF and buffer errors come from a connection
    /// that was made and then closed or broke.
    private static func failure(for error: evhttp_request_error?, freshConnection: Bool, maxBytes: Int) -> OriginFailure {
        switch error {
        case nil where freshConnection: .connectFailed("could not resolve or connect")
        case EVREQ_HTTP_TIMEOUT: .timedOut
        case EVREQ_HTTP_INVALID_HEADER: .invalidResponse("malformed status line or headers")
        case EVREQ_HTTP_DATA_TOO_LONG: .responseTooLarge(limit: maxBytes)
        default: .connectionLost
        }
    }

    private static func response(from request: OpaquePointer, maxBytes: Int) -> Result<OriginResponse, OriginFailure> {
        let status = Int(evhttp_request_get_response_code(request))
        var headers = EvhttpInput.headers(of: request)
        var body = EvhttpInput.body(of: request)
        if let encoding = headers["Content-Encoding"]?.trimmingSpaces(), HTTPHeaders.sameName(encoding, "gzip") {
            do {
                body = try Gzip.decompress(body, maxBytes: maxBytes)
            } catch .tooLarge {
                return .failure(.responseTooLarge(limit: maxBytes))
            } catch {
                return .failure(.invalidResponse("the gzip body is corrupt"))
            }
            headers.remove("Content-Encoding")
            headers.set("Content-Length", String(body.count))
        }
        return .success(OriginResponse(status: status, headers: headers, body: body))
    }

    fileprivate func deadlinePassed(_ exchange: OriginExchange) {
        exchange.deadlineTimer.map { event_free($0) }
        exchange.deadlineTimer = nil
        abandon(exchange, .timedOut)
    }

    fileprivate func connectTimerFired(_ exchange: OriginExchange) {
        exchange.connectTimer.map { event_free($0) }
        exchange.connectTimer = nil
        if let connection = exchange.connection, connection.isConnected { return }
        abandon(exchange, .connectFailed("no connection within \(configuration.connectTimeout)"))
    }

    /// Gives up on `exchange` wherever it is: waiting, or with a request on a connection
    /// (cancelled; libevent then calls nothing back and resets the connection).
    private func abandon(_ exchange: OriginExchange, _ failure: OriginFailure) {
        if let waiter = exchange.waiterID, state.cancelWaiter(waiter) {
            waiters[waiter] = nil
            exchange.waiterID = nil
        }
        if let request = exchange.pending {
            evhttp_cancel_request(request)
            exchange.pending = nil
        }
        if let connection = exchange.connection {
            exchange.connection = nil
            connection.served += 1
            release(connection, reusable: false)
        }
        complete(exchange, .failure(failure))
    }

    fileprivate func connectionClosed(_ connection: OriginConnection) {
        if state.idleConnectionClosed(connection.id) {
            close(connection)
        }
    }

    fileprivate func expireIdle() {
        for id in state.expireIdle(now: .now) {
            if let connection = connections[id] { close(connection) }
        }
    }

    // MARK: pool actions

    private func release(_ connection: OriginConnection, reusable: Bool) {
        switch state.release(connection.id, reusable: reusable, now: .now) {
        case .park:
            break
        case .handOver(_, let waiter):
            guard let next = waiters.removeValue(forKey: waiter) else { return }
            next.waiterID = nil
            run(next, on: connection)
        case .close:
            close(connection)
        case .closeAndOpen(_, let replacement, let waiter):
            close(connection)
            guard let next = waiters.removeValue(forKey: waiter) else { return }
            next.waiterID = nil
            start(next, onNew: replacement)
        }
    }

    /// Frees the connection on a later loop turn: libevent may be inside one of its
    /// callbacks now, and freeing there is unsafe.
    private func close(_ connection: OriginConnection) {
        connections[connection.id] = nil
        evhttp_connection_set_closecb(connection.evcon, nil, nil)
        let evcon = UnsafeSendablePointer(connection.evcon)
        loop.post { evhttp_connection_free(evcon.pointer) }
    }

    private func complete(_ exchange: OriginExchange, _ result: Result<OriginResponse, OriginFailure>) {
        if exchange.pending == nil {
            exchanges[ObjectIdentifier(exchange)] = nil
        }
        if let metrics, !exchange.finished {
            metrics.originRequest(outcome: Self.outcome(result), duration: .now - exchange.started)
        }
        exchange.finish(result)
    }

    /// The metric label for a result: the status code, or the failure's kind.
    private static func outcome(_ result: Result<OriginResponse, OriginFailure>) -> String {
        switch result {
        case .success(let response): String(response.status)
        case .failure(.connectFailed): "connect_failed"
        case .failure(.timedOut): "timeout"
        case .failure(.connectionLost): "connection_lost"
        case .failure(.invalidResponse): "invalid_response"
        case .failure(.responseTooLarge): "too_large"
        case .failure(.overloaded): "overloaded"
        }
    }

    private func startTimer(
        after delay: Duration, for exchange: OriginExchange,
        callback: @convention(c) (Int32, Int16, UnsafeMutableRawPointer?) -> Void
    ) -> OpaquePointer? {
        // Unmanaged: passUnretained. The exchange frees its timers when it finishes, and the
        // pool keeps it alive until then.
        let timer = event_new(loop.base, -1, 0, callback, Unmanaged.passUnretained(exchange).toOpaque())
        var tv = timeval(delay)
        event_add(timer, &tv)
        return timer
    }

    /// Closes every connection and stops the expiry timer. On the loop thread, with no
    /// request in flight.
    func close() {
        if let expiryTimer { event_free(expiryTimer) }
        expiryTimer = nil
        for connection in connections.values {
            evhttp_connection_set_closecb(connection.evcon, nil, nil)
            evhttp_connection_free(connection.evcon)
        }
        connections = [:]
    }
}

// MARK: C callbacks, on the loop thread. Each context is an unretained pointer whose object
// the pool keeps alive (see OriginExchange and OriginConnection).

/// evhttp's request callback: a response (`request` with a status) or a failure.
private func originRequestCallback(_ request: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    let exchange = Unmanaged<OriginExchange>.fromOpaque(context!).takeUnretainedValue()
    exchange.pool?.requestFinished(exchange, request)
}

/// evhttp's error callback; runs just before the request callback of a failed request.
private func originRequestErrorCallback(_ error: evhttp_request_error, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<OriginExchange>.fromOpaque(context!).takeUnretainedValue().error = error
}

/// The response's headers have arrived; returning 0 lets evhttp read the body.
private func originResponseHeaderCallback(_: OpaquePointer?, _ context: UnsafeMutableRawPointer?) -> Int32 {
    Unmanaged<OriginExchange>.fromOpaque(context!).takeUnretainedValue().headersReceived = true
    return 0
}

private func originDeadlineCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    let exchange = Unmanaged<OriginExchange>.fromOpaque(context!).takeUnretainedValue()
    exchange.pool?.deadlinePassed(exchange)
}

private func originConnectCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    let exchange = Unmanaged<OriginExchange>.fromOpaque(context!).takeUnretainedValue()
    exchange.pool?.connectTimerFired(exchange)
}

private func originConnectionClosedCallback(_: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    let connection = Unmanaged<OriginConnection>.fromOpaque(context!).takeUnretainedValue()
    connection.pool?.connectionClosed(connection)
}

private func originPoolExpiryCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<OriginPool>.fromOpaque(context!).takeUnretainedValue().expireIdle()
}

/// An OpaquePointer carried in a job posted to the loop that owns it.
struct UnsafeSendablePointer: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}
