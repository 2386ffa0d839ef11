import CEvent
import CNghttp2
import HTTPCodec
import HTTPInterface
import GatewaySupport

/// One client connection speaking HTTP/2 (RFC 9113): the libevent driver of an nghttp2 server
/// session. It starts as a `ClientConnection`, which hands over its socket (and TLS session)
/// when ALPN chose `h2` or the first bytes are the HTTP/2 preface.
///
/// nghttp2 decides framing, HPACK, flow control and stream states; this class reads into the
/// loop's HTTP/2 buffer and feeds the session, reads each stream's fields into the same
/// `RequestHead` an HTTP/1.1 request makes (`HTTP2RequestAssembly`, by the decoder's rules),
/// hands it to the application through the same interface (`+Requests.swift`), and writes
/// what the session serialises, with stored bodies sent without copying (`HTTP2Output`), over
/// the same `ClientSocket` the HTTP/1.1 connection drove.
///
/// Bounds the library leaves to the application are decided without I/O by two machines in
/// `HTTPCodec`, and carried out here: the connection's (`machine`: header blocks, rapid reset,
/// the idle, header and write deadlines, the connection's window, queued output, the drain)
/// and each stream's (`HTTP2Stream.state`: the header list size, the body limit, the body and
/// zero-window deadlines, the reset after a refusal). nghttp2 also bounds rapid resets,
/// CONTINUATION floods and unread ACKs (`HTTP2SessionTemplate`).
///
/// Invariant: created, used and closed only on `server.loop`'s thread. The loop's connection
/// table keeps it alive until it closes; an exchange in flight keeps it too.
final class HTTP2Connection: ServerConnection, ExchangeConnection, @unchecked Sendable {
    let peer: String
    let peerAddress: IPAddress
    let server: ServerLoop
    /// The descriptor, its TLS session and the events (the timer runs the machine's
    /// deadlines), taken over from the HTTP/1.1 connection; closed with this one. Unchecked
    /// exclusivity: touched only on the loop's thread, and no call into it calls back.
    @exclusivity(unchecked) var socket: ClientSocket
    /// Owned (`nghttp2_session *`); deleted when the connection closes, before this object goes.
    var session: OpaquePointer?
    /// Owned; the session's allocator (CNghttp2/shim.h), deleted after the session. Its large
    /// blocks' pages are given back once the connection has idled a second (`shedIfIdle`).
    var arena: UnsafeMutablePointer<cnghttp2_arena>?

    var streams: [Int32: HTTP2Stream] = [:]
    /// Closed streams' objects, reused by the next ones (at most ``maxSpareStreams``).
    var spareStreams: [HTTP2Stream] = []
    static let maxSpareStreams = 16
    var output = HTTP2Output()
    /// The second in which an answer last indexed its unique fields (HTTP2HeaderBlock).
    var uniqueIndexedSecond = -1
    /// Inside `nghttp2_session_mem_recv`: answers submitted now are sent when it returns.
    private var receiving = false
    /// Every bound this connection adds to nghttp2, decided without I/O: header blocks,
    /// rapid reset, the deadlines (idle, header, body, write, zero window) and the drain.
    var machine: HTTP2ConnectionStateMachine
    private(set) var closed = false
    /// The session ended and its last frames are written: the write side is shut and what
    /// the client still sends is read and dropped for a moment, so its last frames (a GOAWAY
    /// above all) are not destroyed by a reset.
    private(set) var lingering = false

    /// Takes over `socket` (without events) from the HTTP/1.1 connection that read the first
    /// bytes from it. Nil when the events or the session cannot be made (the caller closes
    /// the socket).
    init?(socket: ClientSocket, peer: String, address: IPAddress, server: ServerLoop) {
        self.socket = socket
        self.peer = peer
        peerAddress = address
        self.server = server
        let configuration = server.core.configuration
        machine = HTTP2ConnectionStateMachine(
            limits: HTTP2ConnectionStateMachine.Limits(
                maxHeadBytes: server.core.requestLimits.maxHeadBytes, maxConcurrentStreams: configuration.http2.maxConcurrentStreams,
                headerTimeout: configuration.headerTimeout, bodyTimeout: configuration.bodyTimeout, writeTimeout: configuration.writeTimeout,
                idleTimeout: configuration.idleTimeout, resetBurst: configuration.http2.streamResetBurst, resetRate: configuration.http2.streamResetRate,
                maxOutputBytes: configuration.maxOutputBytes),
            now: .now)
        guard let template = server.core.http2 else { return nil }
        // Unmanaged: passUnretained, for the session's user data and the socket's events (as
        // in ClientConnection). The loop's table keeps this object until it closes, which
        // deletes the session and frees the events first.
        let context = Unmanaged.passUnretained(self).toOpaque()
        var made: OpaquePointer?
        // The shim's allocator (CNghttp2/shim.h): per-thread free lists by size class, and the
        // large blocks in this connection's arena.
        guard let arena = cnghttp2_arena_new() else { return nil }
        guard nghttp2_session_server_new3(&made, template.callbacks, context, template.option, &arena.pointee.mem) == 0, let made else {
            cnghttp2_arena_delete(arena)
            return nil
        }
        self.arena = arena
        session = made
        guard self.socket.attach(base: server.loop.base, context: context, callback: http2Callback) else {
            nghttp2_session_del(made)
            session = nil
            cnghttp2_arena_delete(arena)
            self.arena = nil
            return nil
        }
    }

    static func from(_ user: UnsafeMutableRawPointer?) -> HTTP2Connection {
        Unmanaged<HTTP2Connection>.fromOpaque(user!).takeUnretainedValue()
    }

    /// Sends the server's SETTINGS (the machine's: with RFC 9218's priorities, a client's
    /// `priority` field and PRIORITY_UPDATE frames order the answers), takes the bytes the
    /// HTTP/1.1 connection read, and starts reading. On the loop thread, once.
    func begin(initial: UnsafeRawBufferPointer) {
        var settings = machine.initialSettings.map { nghttp2_settings_entry(settings_id: $0.id, value: $0.value) }
        guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0 else { return tearDown() }
        socket.resumeReading()
        if !initial.isEmpty {
            guard feed(initial) else { return endAfterOutput() }
        }
        sendPending()
    }

    // MARK: - ServerConnection

    var isIdle: Bool { streams.isEmpty && output.isEmpty && !closed }
    var holdsReadBuffer: Bool { false }

    func close() {
        guard !closed else { return }
        tearDown()
    }

    /// Two-step drain (RFC 9113 §6.8): a GOAWAY with the largest stream id as a notice, a PING,
    /// and on its ACK the final GOAWAY with the last stream this side processed; open streams
    /// finish, then the connection closes.
    func drainBegan() {
        guard !closed else { return }
        switch machine.drainBegan(quiet: streams.isEmpty && output.isEmpty) {
        case .none:
            return
        case .goaway:
            submitGoaway()
        case .noticeAndPing:
            nghttp2_submit_shutdown_notice(session)
            nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
        }
        sendPending()
    }

    /// A PING ACK came back: when it is the drain's, the final GOAWAY.
    func pingAcknowledged() {
        if machine.pingAcknowledged() { submitGoaway() }
    }

    /// GOAWAY(NO_ERROR) with the last stream this side processed.
    func submitGoaway() {
        nghttp2_submit_goaway(
            session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session), NGHTTP2_NO_ERROR.rawValue, nil, 0)
    }

    // MARK: - Reading

    fileprivate func readable() {
        if lingering { return discard() }
        if socket.writeWantsRead {
            socket.writeWantsRead = false
            flush()
            if closed { return }
        }
        let buffer = server.http2ReadBuffer
        reading: while !closed {
            switch socket.read(into: buffer) {
            case .bytes(let count):
                guard feed(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) else { return endAfterOutput() }
                // Plain: a short read means the socket is drained; TLS reads while the session
                // holds bytes (read ahead from the socket, decrypted or not).
                if socket.isTLS ? !socket.hasBufferedInput : count < buffer.count { break reading }
            case .wouldBlock:
                break reading
            case .ended, .plainHTTP:
                // (A plain request is caught before HTTP/2 begins.)
                return tearDown()
            }
        }
        sendPending()
    }

    /// Hands `bytes` to the session. False when the session is over (the caller writes what
    /// it queued, such as the GOAWAY of a protocol error, and closes).
    private func feed(_ bytes: UnsafeRawBufferPointer) -> Bool {
        receiving = true
        let result = nghttp2_session_mem_recv(session, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count)
        receiving = false
        if result < 0 {
            // NGHTTP2_ERR_FLOODED (unread SETTINGS or PING ACKs) and callback failures close
            // at once; a bad preface or protocol error has queued a GOAWAY, which goes first.
            if result != Int(NGHTTP2_ERR_FLOODED.rawValue) && result != Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) {
                nghttp2_session_terminate_session(session, NGHTTP2_PROTOCOL_ERROR.rawValue)
            }
            return false
        }
        return true
    }

    // MARK: - Writing

    /// Serialises what the session has to send into `output` and writes it; closes when the
    /// session wants nothing more. Not while `nghttp2_session_mem_recv` runs (answers
    /// submitted then are sent when it returns).
    func sendPending() {
        guard !closed, !receiving else { return }
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 { return tearDown() }
            if count == 0 { break }
            output.append(UnsafeRawBufferPointer(start: data, count: count))
        }
        flush()
        if closed { return }
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 && output.isEmpty {
            return linger()
        }
        applyBackpressure()
        armDeadline()
    }

    /// Writes queued output until the socket takes no more.
    private func flush() {
        // TLS: a record's worth per write (each writes one record), from the queue's own bytes
        // or gathered into the loop's record buffer: the answers of a loop turn go out in full
        // records, copied once, into OpenSSL. Plain: one writev of many segments.
        let scratch = server.tlsRecordBuffer
        while !output.isEmpty {
            var result = ClientSocket.WriteResult.failed
            if socket.isTLS {
                _ = output.writeContiguous(limit: scratch.count, scratch: scratch) { span in
                    result = socket.write(span)
                    if case .wrote(let count) = result { return count }
                    return 0
                }
            } else {
                _ = output.write { vectors in
                    result = socket.write(vectors: vectors)
                    if case .wrote(let count) = result { return count }
                    return 0
                }
            }
            switch result {
            case .wrote:
                machine.wrote(now: .now)
            case .wouldBlock:
                return armWrite()
            case .needsReadable:
                // The next readable event writes first; reading must go on for it.
                return resumeReadingForWrite()
            case .failed:
                return tearDown()
            }
        }
        socket.disarmWrite()
    }

    fileprivate func writable() {
        if lingering {
            flush()
            if !closed && output.isEmpty { socket.shutOutput() }
            return
        }
        if socket.readWantsWrite {
            socket.readWantsWrite = false
            readable()
            if closed { return }
        }
        flush()
        if closed { return }
        if output.isEmpty { sendPending() }
    }

    private func armWrite() {
        if !socket.armWrite() { tearDown() }
    }

    /// A TLS write waits on a read: reading resumes even under back-pressure (the read
    /// flushes first, and the session cannot write on without it).
    private func resumeReadingForWrite() {
        _ = machine.readingNeeded()
        socket.resumeReading()
    }

    /// Pauses or resumes reading as the machine decides from what is queued (past
    /// `maxOutputBytes`, no new stream is read until the client reads its answers).
    private func applyBackpressure() {
        switch machine.outputQueued(output.byteCount) {
        case .pause: socket.pauseReading()
        case .resume: socket.resumeReading()
        case nil: break
        }
    }

    // MARK: - Ending

    /// The session is over: what it queued (its GOAWAY) is written, then the connection
    /// lingers and closes.
    func endAfterOutput() {
        guard !closed, !lingering else { return }
        while session != nil {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count <= 0 { break }
            output.append(UnsafeRawBufferPointer(start: data, count: count))
        }
        flush()
        if !closed { linger() }
    }

    /// Shuts the write side (TLS: close_notify first) once output is written, then reads and
    /// drops what still comes for up to two seconds, and closes (at end of stream, or then).
    private func linger() {
        guard !closed, !lingering else { return }
        lingering = true
        streams = [:]
        if !output.isEmpty {
            // Written as the socket takes it; the write deadline still bounds it.
            armWrite()
        } else {
            socket.shutOutput()
        }
        socket.armTimer(.seconds(2))
        if machine.readingNeeded() == .resume { socket.resumeReading() }
    }

    /// Lingering: reads raw bytes (TLS is not decrypted any more) and drops them.
    private func discard() {
        let buffer = server.http2ReadBuffer
        while true {
            switch socket.discard(into: buffer) {
            case .bytes: continue
            case .wouldBlock: return
            case .ended, .plainHTTP: return tearDown()
            }
        }
    }

    /// Deletes the session, frees the events and the TLS session, closes the socket. Once.
    func tearDown() {
        guard !closed else { return }
        closed = true
        // Deleting the session calls on_stream_close for open streams; they find `closed`.
        if let session { nghttp2_session_del(session) }
        session = nil
        cnghttp2_arena_delete(arena)
        arena = nil
        streams = [:]
        spareStreams = []
        output.removeAll()
        socket.close()
        server.removed(self)
    }
}

/// The socket's events (read, write, the deadline), on the loop thread; `context` is the
/// HTTP2Connection, unretained (see its init).
private func http2Callback(_: Int32, _ what: Int16, _ context: UnsafeMutableRawPointer?) {
    let connection = Unmanaged<HTTP2Connection>.fromOpaque(context!).takeUnretainedValue()
    if what & Int16(EV_TIMEOUT) != 0 { return connection.timedOut() }
    if what & Int16(EV_WRITE) != 0 { return connection.writable() }
    connection.readable()
}
