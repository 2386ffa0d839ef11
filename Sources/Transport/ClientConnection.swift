import CEvent
import COpenSSL
import Glibc
import HTTPCodec
import HTTPInterface
import GatewaySupport

/// One accepted client connection: the libevent driver of an `HTTP1ConnectionStateMachine`.
///
/// The machine decides (when to read, decode, answer, pause, which deadline runs, when to
/// refuse, linger or close); this class performs what it says: reads into a buffer lent by
/// the loop's pool (`ConnectionInput`), decodes with `RequestDecoder`, hands requests to the
/// application (`ClientConnection+Requests.swift`), writes answers with `writev` or
/// `sendfile` over the plain or TLS stream (`ClientConnection+Stream.swift`), and keeps the
/// read event, the write event (made by the first write that falls short) and the one
/// deadline timer in step with the machine's actions.
///
/// A connection waiting for its next request holds this object, its read event and its
/// timer, and nothing else: the read buffer goes back to the pool whenever nothing of a
/// request is buffered.
///
/// Invariant: created, used and closed only on `server.loop`'s thread. The object stays
/// alive while its loop lists it (until it closes) and while an exchange holds it.
final class ClientConnection: ServerConnection, ExchangeConnection, @unchecked Sendable {
    let fd: Int32
    let peer: String
    /// The peer's address, for rate limits.
    let peerAddress: IPAddress
    /// Strong: an exchange that answers after the server stopped must still find it.
    let server: ServerLoop
    /// Owned; freed when the connection closes. The TLS session over `fd`, when the server
    /// speaks HTTPS.
    var ssl: OpaquePointer?
    /// Owned; freed when the connection closes.
    var readEvent: OpaquePointer?
    /// Owned; made by the first write that falls short, freed when the connection closes.
    var writeEvent: OpaquePointer?
    /// Owned; freed when the connection closes. Runs the deadline the machine armed.
    private var timer: OpaquePointer?
    /// Every decision about this connection. Unchecked exclusivity: touched only on the
    /// loop's thread, never across a call that could touch it again (the machine returns an
    /// action; the driver performs it after the access ended), and checked accesses cost a
    /// cache hit several hundred instructions.
    @exclusivity(unchecked) var machine: HTTP1ConnectionStateMachine

    /// The read state, lent by the loop's pool while this connection reads; nil while it
    /// waits with nothing buffered. `input`, `start`, `end` and `decoder` are its parts
    /// (only read or changed while it is lent; `start` and `end` read 0 without it).
    @exclusivity(unchecked) var reading: ConnectionInput?
    var input: [UInt8] {
        _read { yield reading!.bytes }
        _modify { yield &reading!.bytes }
    }
    var start: Int {
        get { reading?.start ?? 0 }
        set { reading!.start = newValue }
    }
    var end: Int {
        get { reading?.end ?? 0 }
        set { reading!.end = newValue }
    }
    var decoder: RequestDecoder {
        _read { yield reading!.decoder }
        _modify { yield &reading!.decoder }
    }

    /// Output not yet taken by the socket: bytes, then (after them) part of a file.
    var pending: [UInt8] = []
    var pendingOffset = 0
    var pendingFile: (any FileBody)?
    var pendingFileOffset = 0
    var pendingFileEnd = 0
    var hasPendingOutput: Bool { pending.count > pendingOffset || pendingFile != nil }
    var pendingBytes: Int { pending.count - pendingOffset + (pendingFileEnd - pendingFileOffset) }
    var writeArmed = false
    /// TLS: the last read wanted the socket writable, or the last write wanted it readable.
    var readWantsWrite = false
    var writeWantsRead = false

    /// The socket is asked for this much at most per read.
    static let readChunk = 64 * 1024

    /// Until the first request's bytes are judged: whether they are HTTP/2's (ALPN chose
    /// `h2`, or the HTTP/2 preface). Only when the server speaks HTTP/2.
    private var sniffsHTTP2: Bool
    /// The connection went on as HTTP/2 (`HTTP2Connection` has its socket): nothing here
    /// touches it any more.
    private var handedOff = false

    init?(fd: Int32, ssl: OpaquePointer?, peer: String, address: IPAddress, server: ServerLoop) {
        self.fd = fd
        self.ssl = ssl
        self.peer = peer
        self.peerAddress = address
        self.server = server
        machine = HTTP1ConnectionStateMachine(maxOutputBytes: server.core.configuration.maxOutputBytes)
        sniffsHTTP2 = server.core.http2 != nil
        if let ssl {
            SSL_set_fd(ssl, fd)
            SSL_set_accept_state(ssl)
            copenssl_set_nonblocking_writes(ssl)
            copenssl_release_idle_buffers(ssl)
        }
        // Unmanaged: passUnretained, for the read event and the timer here (and the write event
        // in `armWrite`). The loop's connection table keeps this object until it closes, which
        // frees the events first.
        let context = Unmanaged.passUnretained(self).toOpaque()
        let base = server.loop.base
        guard let readEvent = event_new(base, fd, Int16(EV_READ | EV_PERSIST), connectionReadCallback, context) else { return nil }
        guard let timer = event_new(base, -1, 0, connectionTimerCallback, context) else {
            // The caller closes the socket and the session; the read event is this init's.
            event_free(readEvent)
            return nil
        }
        self.readEvent = readEvent
        self.timer = timer
    }

    /// Starts reading. On the loop thread, once.
    func begin() {
        perform(machine.start())
    }

    /// Whether a read buffer is lent to this connection now (tests: an idle one holds none).
    var holdsReadBuffer: Bool { reading != nil }

    /// Waiting between requests with nothing buffered: safe to close without losing work.
    var isIdle: Bool { machine.isIdle }

    /// Closes the connection now (server stopping, room for a new one). Idempotent; on the
    /// loop thread.
    func close() {
        perform(machine.close())
    }

    /// The server began draining: later answers close their connection; an idle one closes
    /// now. On the loop thread.
    func drainBegan() {
        perform(machine.drainBegan())
    }

    // MARK: - Events

    fileprivate func readable() {
        if writeWantsRead {
            writeWantsRead = false
            perform(machine.outputFlushed(flush()))
            if machine.isClosed { return }
        }
        perform(machine.readable())
    }

    fileprivate func writable() {
        if readWantsWrite {
            readWantsWrite = false
            if !hasPendingOutput { disarmWrite() }
            readable()
            if machine.isClosed { return }
        }
        if hasPendingOutput { perform(machine.outputFlushed(flush())) }
    }

    fileprivate func timedOut() {
        perform(machine.timerFired())
    }

    // MARK: - Performing the machine's actions

    /// Applies `action` and performs its step, then the actions the step's outcomes lead to,
    /// until a step returns to the event loop.
    func perform(_ first: HTTP1ConnectionStateMachine.Action) {
        // The loop's count of idle connections follows every change, whichever step ends.
        defer { countIdle(machine.isIdle) }
        var action = first
        // The request the last `decode` step completed, until the `handle` step (a local, so
        // an idle connection does not carry a request's worth of fields).
        var message: RequestMessage?
        while true {
            apply(action.reading)
            apply(action.deadline)
            switch action.step {
            case .wait, .writeAnswer:
                // `writeAnswer` is returned only by `answerReady`, whose caller writes.
                returnStorage()
                return
            case .receive:
                action = machine.received(receive())
            case .discard:
                action = machine.received(discard())
            case .decode:
                if sniffsHTTP2 {
                    switch sniff() {
                    case .undecided: break
                    case .http1: sniffsHTTP2 = false
                    case .needMore:
                        action = machine.decoded(.needMore)
                        continue
                    case .http2:
                        handOffToHTTP2()
                        return
                    }
                }
                let fact: HTTP1ConnectionStateMachine.DecodeFact
                (fact, message) = decodeNext()
                action = machine.decoded(fact)
            case .sendContinue:
                action = machine.continueWritten(send(head: HTTPStatus.continueResponse, body: []))
            case .handle:
                handle(message.take()!)
                action = machine.requestHandled()
            case .refuse(let refusal):
                refuse(refusal)
                return
            case .shutOutput:
                shutOutput()
                return
            case .shutOutputAndClose:
                shutOutput()
                tearDown()
                return
            case .close:
                tearDown()
                return
            case .reset:
                // Dropped with a reset and no answer (`GatewayResponse.droppedConnection`).
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                tearDown()
                return
            }
        }
    }

    func apply(_ change: HTTP1ConnectionStateMachine.ReadingChange) {
        switch change {
        case .keep: break
        case .pause: event_del(readEvent)
        case .resume: event_add(readEvent, nil)
        }
    }

    private func apply(_ change: HTTP1ConnectionStateMachine.DeadlineChange) {
        switch change {
        case .keep: break
        case .cancel: event_del(timer)
        case .arm(let deadline): arm(deadline)
        case .startHead(let armed):
            reading?.headStarted = .now
            if armed { arm(.head) }
        }
    }

    /// Arms the timer for `deadline`. The head deadline runs from the head's first byte, so
    /// re-arming it never extends it.
    private func arm(_ deadline: HTTP1ConnectionStateMachine.Deadline) {
        let core = server.core
        let duration: Duration
        switch deadline {
        case .idle: duration = core.configuration.idleTimeout
        case .head: duration = max(.zero, core.configuration.headerTimeout - (.now - (reading?.headStarted ?? .now)))
        case .body: duration = core.configuration.bodyTimeout
        case .write: duration = core.configuration.writeTimeout
        case .linger: duration = HTTP1ConnectionStateMachine.lingerDuration
        }
        var tv = timeval(duration)
        event_add(timer, &tv)
    }

    /// Decodes what is buffered: what the machine is told, and the request when one is whole.
    private func decodeNext() -> (HTTP1ConnectionStateMachine.DecodeFact, RequestMessage?) {
        guard reading != nil, start < end else { return (.nothingBuffered, nil) }
        let result = input.withUnsafeMutableBytes { bytes in
            decoder.decode(UnsafeMutableRawBufferPointer(rebasing: bytes[start..<end]))
        }
        var complete: RequestMessage?
        if case .complete(let message) = result { complete = message }
        return (HTTP1ConnectionStateMachine.DecodeFact(result, bufferedBytes: end - start), complete)
    }

    // MARK: - The write event

    /// Arms the write event, making it on first use. False when it cannot be made (the
    /// caller reports the write as failed).
    func armWrite() -> Bool {
        guard !writeArmed else { return true }
        if writeEvent == nil {
            // Unmanaged: passUnretained, as for the read event (see init).
            writeEvent = event_new(
                server.loop.base, fd, Int16(EV_WRITE | EV_PERSIST), connectionWriteCallback, Unmanaged.passUnretained(self).toOpaque())
            guard writeEvent != nil else { return false }
        }
        writeArmed = true
        event_add(writeEvent, nil)
        return true
    }

    func disarmWrite() {
        guard writeArmed else { return }
        writeArmed = false
        event_del(writeEvent)
    }

    // MARK: - Read storage

    /// Takes a read buffer and a decoder from the loop's pool when this connection holds
    /// none (it gave them back when it had nothing pending).
    func borrowStorage() {
        if reading == nil { reading = server.inputs.lend() }
    }

    /// Gives the read buffer and the decoder back to the loop's pool when nothing of a
    /// request is buffered and the decoder is between messages.
    func returnStorage() {
        guard let lent = reading, lent.start == lent.end, lent.decoder.isBetweenMessages else { return }
        reading = nil
        server.inputs.giveBack(lent)
    }

    // MARK: - Ending

    /// Whether this connection is counted in its loop's `idleConnections`.
    private var countedIdle = false

    /// Keeps the loop's count of idle connections (read by other loops at the connection
    /// cap) in step with this connection.
    private func countIdle(_ idle: Bool) {
        guard idle != countedIdle, !handedOff else { return }
        countedIdle = idle
        server.idleConnections.add(idle ? 1 : -1, ordering: .relaxed)
    }

    // MARK: - HTTP/2

    private enum Sniffed { case undecided, http1, needMore, http2 }

    /// `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n` (RFC 9113 §3.4).
    private static let http2Preface: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    /// What the first bytes say: over TLS, ALPN's choice (made by the time bytes arrive);
    /// in the clear, whether they are (so far) the HTTP/2 preface.
    private func sniff() -> Sniffed {
        guard reading != nil, start < end else { return .undecided }
        if let ssl { return copenssl_alpn_is_h2(ssl) != 0 ? .http2 : .http1 }
        let count = min(end - start, Self.http2Preface.count)
        let matches = input.withUnsafeBytes { bytes in
            UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count)]).elementsEqual(Self.http2Preface[0..<count])
        }
        guard matches else { return .http1 }
        return count < Self.http2Preface.count ? .needMore : .http2
    }

    /// Gives the socket (and the TLS session) to an `HTTP2Connection` with the bytes read so
    /// far, and leaves the loop's table in its favour. This object's events go; it is
    /// released when the call that got here returns.
    private func handOffToHTTP2() {
        countIdle(false)
        handedOff = true
        freeEvents(&readEvent, &writeEvent, &timer)
        writeArmed = false
        let initial = Array(input[start..<end])
        if let lent = reading { server.inputs.giveBack(lent) }
        reading = nil
        let session = ssl
        ssl = nil
        guard let successor = HTTP2Connection(fd: fd, ssl: session, peer: peer, address: peerAddress, server: server) else {
            if let session { SSL_free(session) }
            Glibc.close(fd)
            server.removed(self)
            return
        }
        server.replace(self, with: successor)
        initial.withUnsafeBytes { successor.begin(initial: $0) }
    }

    /// Closes the socket and frees the events and the session. Once, when the machine says
    /// close; nothing touches the events afterwards (the machine asks for nothing more).
    private func tearDown() {
        countIdle(false)
        writeArmed = false
        freeEvents(&readEvent, &writeEvent, &timer)
        if let ssl { SSL_free(ssl) }
        ssl = nil
        Glibc.close(fd)
        pending = []
        pendingFile = nil
        if let lent = reading { server.inputs.giveBack(lent) }
        reading = nil
        server.removed(self)
    }
}

/// The connection's read event, on the loop thread. `context` is the ClientConnection,
/// unretained (see its init).
private func connectionReadCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<ClientConnection>.fromOpaque(context!).takeUnretainedValue().readable()
}

/// The connection's write event (armed only while output is queued); `context` as above.
private func connectionWriteCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<ClientConnection>.fromOpaque(context!).takeUnretainedValue().writable()
}

/// The connection's deadline; `context` as above.
private func connectionTimerCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<ClientConnection>.fromOpaque(context!).takeUnretainedValue().timedOut()
}
