import CEvent
import COpenSSL
import Glibc

/// The byte stream under one client connection, plain or TLS, for both protocols: reads (TLS:
/// with the session's read-ahead), writes of one span or (plain) of many, `sendfile`, the
/// read event, the write event, the deadline timer, shutting the write side, resetting, and
/// closing. `ClientConnection` (HTTP/1.1) and `HTTP2Connection` drive it; neither has socket
/// or OpenSSL code of its own. Each call reports what happened; none decides what happens
/// next.
///
/// The three events call one function (the owner's, given to ``attach(base:context:callback:)``)
/// with what happened: `EV_READ`, `EV_WRITE` or `EV_TIMEOUT`. A connection that goes on as
/// HTTP/2 takes the socket over with ``handOff()``: the events go, the descriptor and the TLS
/// session stay open.
///
/// Value type, held by one connection and used only on that connection's loop thread. It owns
/// `fd`, `ssl` and the events until ``close()`` or ``handOff()``.
struct ClientSocket {
    /// What a read did.
    enum ReadResult: Equatable {
        /// This many bytes were read into the buffer.
        case bytes(Int)
        /// Nothing to read now (the read event says when there is; over TLS, the session may
        /// instead wait for the socket to be writable, and the write event was armed for it).
        case wouldBlock
        /// The peer ended the stream, or it failed.
        case ended
        /// TLS: the client's first bytes are an HTTP/1.x request, not a TLS record; nothing
        /// was read (``refusePlainHTTP(_:)`` answers it).
        case plainHTTP
    }

    /// What a write did.
    enum WriteResult: Equatable {
        /// This many bytes were taken.
        case wrote(Int)
        /// The socket takes nothing now: arm the write event.
        case wouldBlock
        /// TLS: the session must read before it can write on (``writeWantsRead`` is set):
        /// reading must go on, and the next readable event flushes first.
        case needsReadable
        /// The stream failed: the connection cannot go on.
        case failed
    }

    private(set) var fd: Int32
    /// Owned: the TLS session over `fd` when the server speaks HTTPS; freed by ``close()``.
    private(set) var ssl: OpaquePointer?
    /// Owned; freed by ``close()`` and ``handOff()``.
    private var readEvent: OpaquePointer?
    /// Owned; made by the first ``armWrite()``.
    private var writeEvent: OpaquePointer?
    private var timer: OpaquePointer?
    private(set) var writeArmed = false
    private var readArmed = false
    /// TLS: the last read wanted the socket writable; the write event that follows reads first.
    var readWantsWrite = false
    /// TLS: the last write wanted the socket readable; the read event that follows writes first.
    var writeWantsRead = false
    /// TLS: whether the client's first byte was seen to start a TLS record (looked at once,
    /// before the handshake reads it).
    private var firstByteChecked = false

    /// A socket just accepted, with its TLS session (not yet handshaken) when the server speaks
    /// HTTPS: the session is set to accept on `fd`, with partial writes on, and gives its
    /// buffers back whenever they are empty.
    init(accepted fd: Int32, ssl: OpaquePointer?) {
        self.fd = fd
        self.ssl = ssl
        if let ssl {
            SSL_set_fd(ssl, fd)
            SSL_set_accept_state(ssl)
            copenssl_set_nonblocking_writes(ssl)
            copenssl_release_idle_buffers(ssl)
        }
    }

    var isTLS: Bool { ssl != nil }

    /// Over TLS, whether ALPN chose `h2` (known once the handshake is done: by the time the
    /// first bytes are read).
    var negotiatedHTTP2: Bool {
        guard let ssl else { return false }
        return copenssl_alpn_is_h2(ssl) != 0
    }

    /// TLS: whether the session holds bytes read ahead from the socket (no event says so).
    var hasBufferedInput: Bool {
        guard let ssl else { return false }
        return SSL_has_pending(ssl) != 0
    }

    // MARK: - Events

    /// Makes the read event and the timer, both calling `callback` with `context` (the
    /// owner, unretained: the owner frees the events, by ``close()`` or ``handOff()``, before
    /// it goes). Neither is armed. False when libevent could not make them (nothing is left
    /// made; the caller closes the socket).
    mutating func attach(base: OpaquePointer, context: UnsafeMutableRawPointer, callback: event_callback_fn) -> Bool {
        guard let read = event_new(base, fd, Int16(EV_READ | EV_PERSIST), callback, context) else { return false }
        guard let timer = event_new(base, -1, 0, callback, context) else {
            event_free(read)
            return false
        }
        readEvent = read
        self.timer = timer
        return true
    }

    mutating func resumeReading() {
        guard !readArmed, let readEvent else { return }
        readArmed = true
        event_add(readEvent, nil)
    }

    mutating func pauseReading() {
        guard readArmed else { return }
        readArmed = false
        event_del(readEvent)
    }

    /// Arms the write event, making it on first use (with the read event's callback and
    /// context). False when it cannot be made.
    mutating func armWrite() -> Bool {
        guard !writeArmed else { return true }
        if writeEvent == nil {
            guard let readEvent,
                  let made = event_new(
                    event_get_base(readEvent), fd, Int16(EV_WRITE | EV_PERSIST), event_get_callback(readEvent), event_get_callback_arg(readEvent))
            else { return false }
            writeEvent = made
        }
        writeArmed = true
        event_add(writeEvent, nil)
        return true
    }

    mutating func disarmWrite() {
        guard writeArmed else { return }
        writeArmed = false
        event_del(writeEvent)
    }

    /// Runs the timer once, `duration` from now (replacing what it ran).
    func armTimer(_ duration: Duration) {
        guard let timer else { return }
        var tv = timeval(duration)
        event_add(timer, &tv)
    }

    func cancelTimer() {
        guard let timer else { return }
        event_del(timer)
    }

    // MARK: - Reading

    /// Reads once into `buffer` (TLS: one record's worth or less, decrypted). When a TLS read
    /// needs the socket writable, arms the write event and sets ``readWantsWrite``
    /// (``ReadResult/ended`` when the event cannot be made: the session cannot go on).
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
        guard let ssl else {
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if count > 0 { return .bytes(count) }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { return .wouldBlock }
            return .ended
        }
        if !firstByteChecked {
            var first: UInt8 = 0
            let peeked = recv(fd, &first, 1, Int32(MSG_PEEK))
            if peeked < 0 && (errno == EAGAIN || errno == EINTR) { return .wouldBlock }
            guard peeked == 1 else { return .ended }
            firstByteChecked = true
            if PlainHTTPRefusal.startsPlainHTTP(first) { return .plainHTTP }
        }
        let count = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
        if count > 0 { return .bytes(Int(count)) }
        switch SSL_get_error(ssl, count) {
        case SSL_ERROR_WANT_READ:
            return .wouldBlock
        case SSL_ERROR_WANT_WRITE:
            readWantsWrite = true
            return armWrite() ? .wouldBlock : .ended
        default:
            ERR_clear_error()
            return .ended
        }
    }

    /// Lingering: reads raw bytes into `scratch` (TLS is not decrypted any more) to drop them.
    func discard(into scratch: UnsafeMutableRawBufferPointer) -> ReadResult {
        let count = Glibc.read(fd, scratch.baseAddress, scratch.count)
        if count > 0 { return .bytes(count) }
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return .wouldBlock }
        return .ended
    }

    /// TLS, after ``ReadResult/plainHTTP``: what the client sent so far (at most `limit`
    /// bytes), left unread.
    func peekPlain(limit: Int = 8192) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: limit)
        let count = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_PEEK)) }
        return count > 0 ? Array(bytes.prefix(count)) : []
    }

    /// TLS, after ``ReadResult/plainHTTP``: reads and drops what the client sent (so closing
    /// does not reset the answer away), sends `answer` in plain text, bypassing the TLS
    /// session, and shuts the write side. The caller closes.
    func refusePlainHTTP(_ answer: [UInt8]) {
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        _ = scratch.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        _ = answer.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    // MARK: - Writing

    /// Writes `bytes` (TLS: one record per call of up to 16 KiB, partial writes being on;
    /// a retry after ``WriteResult/wouldBlock`` must pass the same bytes again, at least as
    /// many, from anywhere: `SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER`).
    mutating func write(_ bytes: UnsafeRawBufferPointer) -> WriteResult {
        guard let ssl else {
            let written = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            return Self.plainResult(written)
        }
        let written = SSL_write(ssl, bytes.baseAddress, Int32(clamping: bytes.count))
        if written > 0 { return .wrote(Int(written)) }
        switch SSL_get_error(ssl, written) {
        case SSL_ERROR_WANT_WRITE:
            return .wouldBlock
        case SSL_ERROR_WANT_READ:
            writeWantsRead = true
            return .needsReadable
        default:
            ERR_clear_error()
            return .failed
        }
    }

    /// Plain only: writes the segments `vectors` names with one `writev`.
    func write(vectors: UnsafeMutableBufferPointer<iovec>) -> WriteResult {
        precondition(ssl == nil, "writev is for plain connections")
        return Self.plainResult(writev(fd, vectors.baseAddress, Int32(vectors.count)))
    }

    /// Plain only: writes `bytes` with `MSG_MORE` (a head the file that follows joins in one
    /// segment).
    func write(more bytes: UnsafeRawBufferPointer) -> WriteResult {
        precondition(ssl == nil, "MSG_MORE is for plain connections")
        return Self.plainResult(Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_MORE) | Int32(MSG_NOSIGNAL)))
    }

    /// Plain only: sends up to `count` bytes of `file` from `offset` (advanced by what went)
    /// with `sendfile`. A file shorter than asked reports ``WriteResult/failed``.
    func send(file: Int32, offset: inout off_t, count: Int) -> WriteResult {
        precondition(ssl == nil, "sendfile is for plain connections")
        return Self.plainResult(sendfile(fd, file, &offset, count))
    }

    private static func plainResult(_ written: Int) -> WriteResult {
        if written > 0 { return .wrote(written) }
        if written < 0 && (errno == EAGAIN || errno == EINTR) { return .wouldBlock }
        return .failed
    }

    // MARK: - Ending

    /// After the last bytes: shuts the write side (TLS: close_notify first), so a reset does
    /// not destroy output in flight.
    func shutOutput() {
        if let ssl { SSL_shutdown(ssl) }
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Makes ``close()`` reset the connection (RST) instead of ending it.
    func resetOnClose() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
    }

    /// Frees the events and the TLS session and closes the descriptor. Once; nothing may be
    /// called afterwards.
    mutating func close() {
        freeEvents()
        if let ssl { SSL_free(ssl) }
        ssl = nil
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }

    /// Gives the descriptor and the TLS session to the caller, in a socket without events (to
    /// be attached by its new owner); this one is left closed without closing them.
    mutating func handOff() -> ClientSocket {
        freeEvents()
        var successor = self
        successor.readWantsWrite = false
        successor.writeWantsRead = false
        ssl = nil
        fd = -1
        return successor
    }

    private mutating func freeEvents() {
        readArmed = false
        writeArmed = false
        if let readEvent { event_free(readEvent) }
        if let writeEvent { event_free(writeEvent) }
        if let timer { event_free(timer) }
        readEvent = nil
        writeEvent = nil
        timer = nil
    }
}
