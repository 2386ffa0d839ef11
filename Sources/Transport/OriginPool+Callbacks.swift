import GatewaySupport
import BodyCompression
import CEvent
import COpenSSL
import HTTPInterface
import Tracing
import Observability

/// What libevent tells the pool (an exchange finished, failed, timed out; a connection
/// closed; the idle sweep), and the pool's actions on its connections. On the loop thread.
extension OriginPool {
    // MARK: libevent callbacks, on the loop thread

    /// The request finished (`request` non-nil with a status) or failed.
    func requestFinished(_ exchange: OriginExchange, _ request: OpaquePointer?) {
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
    static func failure(for error: evhttp_request_error?, freshConnection: Bool, maxBytes: Int) -> OriginFailure {
        switch error {
        case nil where freshConnection: .connectFailed("could not resolve or connect")
        case EVREQ_HTTP_TIMEOUT: .timedOut
        case EVREQ_HTTP_INVALID_HEADER: .invalidResponse("malformed status line or headers")
        case EVREQ_HTTP_DATA_TOO_LONG: .responseTooLarge(limit: maxBytes)
        default: .connectionLost
        }
    }

    static func response(from request: OpaquePointer, maxBytes: Int) -> Result<OriginResponse, OriginFailure> {
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

    func deadlinePassed(_ exchange: OriginExchange) {
        exchange.deadlineTimer.map { event_free($0) }
        exchange.deadlineTimer = nil
        abandon(exchange, .timedOut)
    }

    func connectTimerFired(_ exchange: OriginExchange) {
        exchange.connectTimer.map { event_free($0) }
        exchange.connectTimer = nil
        if let connection = exchange.connection, connection.isConnected { return }
        abandon(exchange, .connectFailed("no connection within \(configuration.connectTimeout)"))
    }

    /// Gives up on `exchange` wherever it is: waiting, or with a request on a connection
    /// (cancelled; libevent then calls nothing back and resets the connection).
    func abandon(_ exchange: OriginExchange, _ failure: OriginFailure) {
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

    func connectionClosed(_ connection: OriginConnection) {
        if state.idleConnectionClosed(connection.id) {
            close(connection)
        }
    }

    func expireIdle() {
        for id in state.expireIdle(now: .now) {
            if let connection = connections[id] { close(connection) }
        }
    }

    // MARK: pool actions

    func release(_ connection: OriginConnection, reusable: Bool) {
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
    func close(_ connection: OriginConnection) {
        connections[connection.id] = nil
        evhttp_connection_set_closecb(connection.evcon, nil, nil)
        let evcon = UnsafeSendablePointer(connection.evcon)
        loop.post { evhttp_connection_free(evcon.pointer) }
    }

    func complete(_ exchange: OriginExchange, _ result: Result<OriginResponse, OriginFailure>) {
        if exchange.pending == nil {
            exchanges[ObjectIdentifier(exchange)] = nil
        }
        if let metrics, !exchange.finished {
            metrics.originRequest(outcome: Self.outcome(result), duration: .now - exchange.started)
        }
        if let tracer, let spanID = exchange.clientSpanID, let trace = exchange.request.trace, !exchange.finished {
            var status: Int?
            var failure: String?
            switch result {
            case .success(let response): status = response.status
            case .failure: failure = Self.outcome(result)
            }
            let span = HTTPClientSpan(
                method: exchange.request.method.rawValue, scheme: endpoint.scheme.rawValue, host: endpoint.host, port: endpoint.port,
                target: endpoint.basePath + exchange.request.target, status: status, failure: failure)
            tracer.record(span.record(trace: trace, spanID: spanID, elapsed: .now - exchange.started))
        }
        exchange.finish(result)
    }

    /// The metric label for a result: the status code, or the failure's kind.
    static func outcome(_ result: Result<OriginResponse, OriginFailure>) -> String {
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

    func startTimer(
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
    /// Frees every connection (evhttp drops their requests without calling back), then
    /// completes each exchange under way or waiting with `.connectionLost`: its completion
    /// holds what waits for it (the application's coalescers), which must not be kept
    /// for ever by a client that is gone.
    func close() {
        if let expiryTimer { event_free(expiryTimer) }
        expiryTimer = nil
        let unfinished = Array(exchanges.values) + Array(waiters.values)
        exchanges = [:]
        waiters = [:]
        for connection in connections.values {
            evhttp_connection_set_closecb(connection.evcon, nil, nil)
            evhttp_connection_free(connection.evcon)
        }
        connections = [:]
        for exchange in unfinished {
            exchange.pending = nil
            exchange.finish(.failure(.connectionLost))
        }
    }
}

// MARK: C callbacks, on the loop thread. Each context is an unretained pointer whose object
// the pool keeps alive (see OriginExchange and OriginConnection).

/// evhttp's request callback: a response (`request` with a status) or a failure.
func originRequestCallback(_ request: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    let exchange = Unmanaged<OriginExchange>.fromOpaque(context!).takeUnretainedValue()
    exchange.pool?.requestFinished(exchange, request)
}

/// evhttp's error callback; runs just before the request callback of a failed request.
func originRequestErrorCallback(_ error: evhttp_request_error, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<OriginExchange>.fromOpaque(context!).takeUnretainedValue().error = error
}

/// The response's headers have arrived; returning 0 lets evhttp read the body.
func originResponseHeaderCallback(_: OpaquePointer?, _ context: UnsafeMutableRawPointer?) -> Int32 {
    Unmanaged<OriginExchange>.fromOpaque(context!).takeUnretainedValue().headersReceived = true
    return 0
}

func originDeadlineCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    let exchange = Unmanaged<OriginExchange>.fromOpaque(context!).takeUnretainedValue()
    exchange.pool?.deadlinePassed(exchange)
}

func originConnectCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    let exchange = Unmanaged<OriginExchange>.fromOpaque(context!).takeUnretainedValue()
    exchange.pool?.connectTimerFired(exchange)
}

func originConnectionClosedCallback(_: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    let connection = Unmanaged<OriginConnection>.fromOpaque(context!).takeUnretainedValue()
    connection.pool?.connectionClosed(connection)
}

func originPoolExpiryCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<OriginPool>.fromOpaque(context!).takeUnretainedValue().expireIdle()
}

/// An OpaquePointer carried in a job posted to the loop that owns it.
struct UnsafeSendablePointer: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}
