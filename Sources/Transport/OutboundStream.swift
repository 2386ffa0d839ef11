import CEvent
import COpenSSL
import Glibc

/// One outgoing TCP connection, plain or TLS, for a protocol that is not HTTP (Redis): a
/// libevent bufferevent, with `bufferevent_openssl` doing the TLS handshake and the checks
/// the ``TLSContext`` asks for (the chain, TLS 1.2 or later, and the server's name or
/// address). The owner writes bytes and is told, through `events`:
/// - `connected` once, when the socket connected (and with TLS, the handshake succeeded);
/// - `received` with each run of bytes read, in order (the pointer is valid only inside);
/// - `closed` once, with why (refused, reset, end of stream, a TLS failure in words), after
///   which nothing more is reported and the stream is dead (``close()`` still frees it).
///
/// Invariant: made, used and closed on `loop`'s thread only. Owns its bufferevent (and with
/// it the descriptor and the `SSL`) until ``close()``, which the owner calls before it lets
/// the stream go (the callbacks hold it unretained).
public final class OutboundStream {
    public enum Event {
        case connected
        case received(UnsafeRawBufferPointer)
        case closed(reason: String)
    }

    private var bufferevent: OpaquePointer?
    private let events: (Event) -> Void
    private let tls: Bool
    private var ended = false
    private var reportedConnected = false

    /// Starts connecting to `address` (numeric, IPv4 or IPv6) and `port`; with `tls`, then
    /// a handshake presenting `serverName` (SNI, when a name) and checking the certificate
    /// against it. Writes made before `connected` wait in the stream's buffer.
    ///
    /// - Throws: `TransportError` when the address is not numeric or libevent or OpenSSL
    ///   cannot make the stream; failures of the connection itself come as `closed`.
    public init(
        loop: EventLoop, address: String, port: Int, tls: TLSContext?, serverName: String, events: @escaping (Event) -> Void
    ) throws(TransportError) {
        self.events = events
        self.tls = tls != nil
        var storage = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        let text = address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
        let parsed = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { evutil_parse_sockaddr_port(text, $0, &length) }
        }
        guard parsed == 0 else { throw TransportError("not a numeric address: \(address)") }
        let options = Int32(BEV_OPT_CLOSE_ON_FREE.rawValue | BEV_OPT_DEFER_CALLBACKS.rawValue)
        let made: OpaquePointer?
        if let tls {
            guard let ssl = tls.makeClientSSL(host: serverName) else { throw TransportError("cannot set up TLS: \(TLSContext.lastError())") }
            // The bufferevent owns `ssl` from here (BEV_OPT_CLOSE_ON_FREE frees it).
            made = bufferevent_openssl_socket_new(loop.base, -1, ssl, BUFFEREVENT_SSL_CONNECTING, options)
            if made == nil { SSL_free(ssl) }
        } else {
            made = bufferevent_socket_new(loop.base, -1, options)
        }
        guard let made else { throw TransportError("cannot make a stream") }
        bufferevent = made
        if tls != nil { bufferevent_openssl_set_allow_dirty_shutdown(made, 1) }
        // Unmanaged: passUnretained. The bufferevent is freed in close(), which the owner
        // calls before the stream goes away, so no callback sees a freed object.
        bufferevent_setcb(made, outboundReadCallback, nil, outboundEventCallback, Unmanaged.passUnretained(self).toOpaque())
        bufferevent_enable(made, Int16(EV_READ | EV_WRITE))
        let started = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bufferevent_socket_connect(made, $0, length) }
        }
        guard started == 0 else {
            let error = errno
            close()
            throw TransportError("cannot connect to \(text): \(String(cString: strerror(error)))")
        }
        // Commands are small and pipelined: none waits for the previous one's ACK.
        var one: Int32 = 1
        _ = setsockopt(bufferevent_getfd(made), Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { precondition(bufferevent == nil, "OutboundStream dropped without close()") }

    /// Queues `bytes` to be sent (copied). Ignored once closed.
    public func write(_ bytes: UnsafeRawBufferPointer) {
        guard let bufferevent, !ended, let base = bytes.baseAddress else { return }
        bufferevent_write(bufferevent, base, bytes.count)
    }


    /// Whether the socket connected and the TLS handshake has not finished: a server that
    /// does not speak TLS on that port often waits in silence (Redis reads the handshake as
    /// an unfinished command).
    public var waitsForHandshake: Bool {
        guard tls, !reportedConnected, !ended, let bufferevent else { return false }
        let fd = bufferevent_getfd(bufferevent)
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let connected = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        return fd >= 0 && connected == 0
    }

    /// Frees the stream (closing the socket; no TLS close_notify). Nothing is reported after
    /// it, not even `closed`. Idempotent.
    public func close() {
        ended = true
        guard let bufferevent else { return }
        bufferevent_setcb(bufferevent, nil, nil, nil, nil)
        bufferevent_free(bufferevent)
        self.bufferevent = nil
    }

    fileprivate func readable() {
        guard let bufferevent, !ended else { return }
        let input = bufferevent_get_input(bufferevent)
        var chunks = [iovec](repeating: iovec(), count: 8)
        while !ended, evbuffer_get_length(input) > 0 {
            let count = Int(evbuffer_peek(input, -1, nil, &chunks, Int32(chunks.count)))
            var taken = 0
            for chunk in chunks.prefix(min(count, chunks.count)) where !ended {
                events(.received(UnsafeRawBufferPointer(start: chunk.iov_base, count: chunk.iov_len)))
                taken += chunk.iov_len
            }
            // The owner may have closed the stream while it read.
            guard let bufferevent = self.bufferevent else { return }
            evbuffer_drain(bufferevent_get_input(bufferevent), taken)
        }
    }

    fileprivate func happened(_ what: Int16) {
        guard let bufferevent, !ended else { return }
        if what & Int16(BEV_EVENT_CONNECTED) != 0 {
            reportedConnected = true
            events(.connected)
            return
        }
        ended = true
        events(.closed(reason: reason(what, bufferevent)))
    }

    /// Why the stream ended, in words: the TLS failure (with the certificate check's verdict),
    /// or the socket's error, or the peer's end of stream.
    private func reason(_ what: Int16, _ bufferevent: OpaquePointer) -> String {
        let socketError = errno  // libevent restores it before a deferred callback
        if tls, let ssl = bufferevent_openssl_get_ssl(bufferevent) {
            let verdict = SSL_get_verify_result(ssl)
            if verdict != X509_V_OK {
                return "TLS: the server's certificate was refused: \(String(cString: X509_verify_cert_error_string(verdict)))"
            }
            let code = bufferevent_get_openssl_error(bufferevent)
            // For a read or write that failed below TLS, libevent records SSL_get_error's own
            // value (5, SSL_ERROR_SYSCALL), not an OpenSSL error code: the socket's error says more.
            if code != 0, code < 256 {
                return "TLS: \(socketError != 0 ? String(cString: strerror(socketError)) : "the connection ended")"
            }
            if code != 0 {
                var text = "TLS: \(TLSContext.errorText(code))"
                while case let more = bufferevent_get_openssl_error(bufferevent), more != 0 { text += "; \(TLSContext.errorText(more))" }
                return text
            }
        }
        if what & Int16(BEV_EVENT_EOF) != 0 { return "closed by the server" }
        if socketError != 0 { return String(cString: strerror(socketError)) }
        return "connection failed"
    }
}

/// The stream's read callback, on its loop's thread (unretained; see `OutboundStream.init`).
private func outboundReadCallback(_: OpaquePointer?, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<OutboundStream>.fromOpaque(context!).takeUnretainedValue().readable()
}

/// The stream's event callback (connected, end of stream, error), on its loop's thread.
private func outboundEventCallback(_: OpaquePointer?, _ what: Int16, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<OutboundStream>.fromOpaque(context!).takeUnretainedValue().happened(what)
}
