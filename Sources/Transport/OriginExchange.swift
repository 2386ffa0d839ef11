import CEvent
import COpenSSL
import HTTPInterface

/// One request to the origin, from the moment it asks for a connection until its completion
/// handler has run.
///
/// Invariant: used only on its pool's loop thread. Its pool keeps it alive (in `active`)
/// until libevent can no longer call back for it: every callback context below is an
/// unretained pointer to it.
final class OriginExchange {
    let request: OriginRequest
    let started = ContinuousClock.now
    weak var pool: OriginPool?
    private let completion: (Result<OriginResponse, OriginFailure>) -> Void

    /// 0 for the first try, 1 for the one retry of an idempotent request.
    var attempt = 0
    var waiterID: OriginPoolState.WaiterID?
    var connection: OriginConnection?
    /// True when the connection had served a request before this one (a stale keep-alive
    /// connection is the one failure worth retrying).
    var connectionWasReused = false
    /// The evhttp request while libevent holds it (from make_request until the callback,
    /// or until we cancel it).
    var pending: OpaquePointer?
    /// What libevent's error callback said, just before the request callback.
    var error: evhttp_request_error?
    var headersReceived = false
    var deadlineTimer: OpaquePointer?
    var connectTimer: OpaquePointer?
    private(set) var finished = false
    /// The client span's id when the request's trace is recorded (its `traceparent` names
    /// it, retries included); nil otherwise.
    var clientSpanID: String?

    init(request: OriginRequest, completion: @escaping (Result<OriginResponse, OriginFailure>) -> Void) {
        self.request = request
        self.completion = completion
    }

    /// Stops the timers and runs the completion handler, once.
    func finish(_ result: Result<OriginResponse, OriginFailure>) {
        guard !finished else { return }
        finished = true
        stopTimer(&deadlineTimer)
        stopTimer(&connectTimer)
        completion(result)
    }

    func stopTimer(_ timer: inout OpaquePointer?) {
        guard let event = timer else { return }
        event_free(event)
        timer = nil
    }
}

/// One keep-alive connection to the origin.
///
/// Invariant: used only on its pool's loop thread; freed by its pool, never inside one of
/// its own callbacks.
final class OriginConnection {
    let id: OriginPoolState.ConnectionID
    let evcon: OpaquePointer
    weak var pool: OriginPool?
    /// Requests completed on it, successfully or not.
    var served = 0

    init(id: OriginPoolState.ConnectionID, evcon: OpaquePointer) {
        self.id = id
        self.evcon = evcon
    }

    /// OpenSSL's reason when this is a TLS connection whose handshake failed (a certificate
    /// that does not verify, no common protocol); nil otherwise. A TLS error after the
    /// handshake (a reset or a close without close_notify mid-response) is not a connect
    /// failure: the request may have reached the origin.
    func tlsFailure() -> String? {
        guard let bufferevent = evhttp_connection_get_bufferevent(evcon),
            let ssl = bufferevent_openssl_get_ssl(bufferevent), SSL_is_init_finished(ssl) == 0
        else { return nil }
        let code = bufferevent_get_openssl_error(bufferevent)
        return code == 0 ? nil : TLSContext.errorText(code)
    }

    /// Whether the socket has finished connecting (used when the connect timer fires).
    var isConnected: Bool {
        guard let bufferevent = evhttp_connection_get_bufferevent(evcon) else { return false }
        let fd = bufferevent_getfd(bufferevent)
        guard fd >= 0 else { return false }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) == 0 }
        }
    }
}
