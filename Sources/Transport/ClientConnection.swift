import CEvent
import HTTPCodec
import HTTPInterface
import GatewaySupport

/// One accepted client connection: the libevent driver of an `HTTP1ConnectionStateMachine`.
///
/// The machine decides (when to read, decode, answer, pause, which deadline runs, when to
/// refuse, linger or close); this class performs what it says: reads into a buffer lent by
/// the loop's pool (`ConnectionInput`), decodes with `RequestDecoder`, hands requests to the
/// application (`ClientConnection+Requests.swift`), writes answers with `writev` or
/// `sendfile` over the plain or TLS stream (`ClientSocket`, buffered in
/// `ClientConnection+Stream.swift`), and keeps the socket's read event, write event (made by
/// the first write that falls short) and deadline timer in step with the machine's actions.
///
/// A connection waiting for its next request holds this object, its read event and its
/// timer, and nothing else: the read buffer goes back to the pool whenever nothing of a
/// request is buffered.
///
/// Invariant: created, used and closed only on `server.loop`'s thread. The object stays
/// alive while its loop lists it (until it closes) and while an exchange holds it.
final class ClientConnection: ServerConnection, ExchangeConnection, @unchecked Sendable {
    let peer: String
    /// The peer's address, for rate limits.
    let peerAddress: IPAddress
    /// Strong: an exchange that answers after the server stopped must still find it.
    let server: ServerLoop
    /// The descriptor, its TLS session when the server speaks HTTPS, and the events (whose
    /// timer runs the deadline the machine armed); closed with the connection, or handed to
    /// the HTTP/2 connection that goes on from here. Unchecked exclusivity, as `machine`:
    /// touched only on the loop's thread, and no call into it calls back.
    @exclusivity(unchecked) var socket: ClientSocket
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

    /// The socket is asked for this much at most per read.
    static let readChunk = 64 * 1024

    /// Until the first request's bytes are judged: whether they are HTTP/2's (ALPN chose
    /// `h2`, or the HTTP/2 preface). Only when the server speaks HTTP/2.
    private var sniffsHTTP2: Bool
    /// The connection went on as HTTP/2 (`HTTP2Connection` has its socket): nothing here
    /// touches it any more.
    private var handedOff = false

    /// Nil when the events cannot be made (the caller closes `fd` and frees `ssl`).
    init?(fd: Int32, ssl: OpaquePointer?, peer: String, address: IPAddress, server: ServerLoop) {
        socket = ClientSocket(accepted: fd, ssl: ssl)
        self.peer = peer
        self.peerAddress = address
        self.server = server
        machine = HTTP1ConnectionStateMachine(maxOutputBytes: server.core.configuration.maxOutputBytes)
        sniffsHTTP2 = server.core.http2 != nil
        // Unmanaged: passUnretained, for the socket's events. The loop's connection table keeps
        // this object until it closes, which frees the events first.
        guard socket.attach(base: server.loop.base, context: Unmanaged.passUnretained(self).toOpaque(), callback: connectionCallback) else {
            return nil
        }
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
        if socket.writeWantsRead {
            socket.writeWantsRead = false
            perform(machine.outputFlushed(flush()))
            if machine.isClosed { return }
        }
        perform(machine.readable())
    }

    fileprivate func writable() {
        if socket.readWantsWrite {
            socket.readWantsWrite = false
            if !hasPendingOutput { socket.disarmWrite() }
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
                socket.resetOnClose()
                tearDown()
                return
            }
        }
    }

    func apply(_ change: HTTP1ConnectionStateMachine.ReadingChange) {
        switch change {
        case .keep: break
        case .pause: socket.pauseReading()
        case .resume: socket.resumeReading()
        }
    }

    private func apply(_ change: HTTP1ConnectionStateMachine.DeadlineChange) {
        switch change {
        case .keep: break
        case .cancel: socket.cancelTimer()
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
        socket.armTimer(duration)
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
        if socket.isTLS { return socket.negotiatedHTTP2 ? .http2 : .http1 }
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
        let initial = Array(input[start..<end])
        if let lent = reading { server.inputs.giveBack(lent) }
        reading = nil
        var handed = socket.handOff()
        guard let successor = HTTP2Connection(socket: handed, peer: peer, address: peerAddress, server: server) else {
            handed.close()
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
        socket.close()
        pending = []
        pendingFile = nil
        if let lent = reading { server.inputs.giveBack(lent) }
        reading = nil
        server.removed(self)
    }
}

/// The socket's events (read; write, armed only while output is queued; the deadline), on
/// the loop thread. `context` is the ClientConnection, unretained (see its init).
private func connectionCallback(_: Int32, _ what: Int16, _ context: UnsafeMutableRawPointer?) {
    let connection = Unmanaged<ClientConnection>.fromOpaque(context!).takeUnretainedValue()
    if what & Int16(EV_TIMEOUT) != 0 { return connection.timedOut() }
    if what & Int16(EV_WRITE) != 0 { return connection.writable() }
    connection.readable()
}
