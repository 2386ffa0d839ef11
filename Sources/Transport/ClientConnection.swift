import CLibevent
import COpenSSL
import GatewayModels
import Glibc
import HTTPCodec
import HTTPInterface
import Logging
import Observability

/// One accepted client connection: reads bytes into a reused buffer, decodes every complete
/// request in them with `RequestDecoder` and answers them in order, writes each answer at
/// once (`writev` of the head and the body; `EV_WRITE` is armed only after a short write),
/// and enforces the deadlines and the output bound.
///
/// One request is handled at a time. A request answered on the spot (a cache hit) costs no
/// change of the read interest; while a handler works asynchronously, reading pauses, and
/// pipelined requests already read wait in the buffer.
///
/// The read buffer and the decoder (`ConnectionInput`) are lent by the loop's pool when bytes
/// arrive and given back once nothing of a request is buffered, and the write event exists
/// only once a write fell short: a connection waiting for its next request holds this
/// object, its read event and its deadline, and nothing else.
///
/// Invariant: created, used and closed only on `server.loop`'s thread. The object stays
/// alive while its loop lists it (until `close`) and while an exchange holds it.
final class ClientConnection: @unchecked Sendable {
    enum Phase {
        /// Between requests (keep-alive), nothing of the next one read yet.
        case idle
        /// Part of a request head read.
        case head
        /// A head with a body read; the body is being read.
        case body
        /// The request went to its handler; waiting for the answer.
        case handling
        /// Answered with `Connection: close`: writing what is left, then closing.
        case closing
        /// Refused: the write side is shut; input is read and dropped for a moment so the
        /// answer is not lost to a reset, then the socket closes.
        case lingering
        case closed
    }

    private enum Deadline {
        case none, idle, head, body, write, linger
    }

    let fd: Int32
    let peer: String
    /// The peer's address, for rate limits.
    let peerAddress: IPAddress
    /// Strong: an exchange that answers after the server stopped must still find it.
    let server: ServerLoop
    /// Owned; freed in `close`. The TLS session over `fd`, when the server speaks HTTPS.
    private var ssl: OpaquePointer?
    /// Owned; freed in `close`.
    private var readEvent: OpaquePointer?
    /// Owned; made by the first write that falls short, freed in `close`.
    private var writeEvent: OpaquePointer?
    private var timer: OpaquePointer?
    private(set) var phase = Phase.idle
    private var deadline = Deadline.none

    /// The read state, lent by the loop's pool while this connection reads; nil while it
    /// waits with nothing buffered. `input`, `start`, `end` and `decoder` are its parts
    /// (only read or changed while it is lent; `start` and `end` read 0 without it).
    private var reading: ConnectionInput?
    private var input: [UInt8] {
        _read { yield reading!.bytes }
        _modify { yield &reading!.bytes }
    }
    private var start: Int {
        get { reading?.start ?? 0 }
        set { reading!.start = newValue }
    }
    private var end: Int {
        get { reading?.end ?? 0 }
        set { reading!.end = newValue }
    }
    private var decoder: RequestDecoder {
        _read { yield reading!.decoder }
        _modify { yield &reading!.decoder }
    }

    /// Output not yet taken by the socket: bytes, then (after them) part of a file.
    private var pending: [UInt8] = []
    private var pendingOffset = 0
    private var pendingFile: (any FileBody)?
    private var pendingFileOffset = 0
    private var pendingFileEnd = 0

    private var hasPendingOutput: Bool { pending.count > pendingOffset || pendingFile != nil }
    private var pendingBytes: Int { pending.count - pendingOffset + (pendingFileEnd - pendingFileOffset) }
    private var readPaused = false
    private var writeArmed = false
    /// TLS: the last read wanted the socket writable, or the last write wanted it readable.
    private var readWantsWrite = false
    private var writeWantsRead = false
    /// Inside `processInput` (answers given on the spot must not re-enter it).
    private var processing = false
    private var lingerBudget = 0

    /// The socket is asked for this much at most per read.
    static let readChunk = 64 * 1024

    init?(fd: Int32, ssl: OpaquePointer?, peer: String, address: IPAddress, server: ServerLoop) {
        self.fd = fd
        self.ssl = ssl
        self.peer = peer
        self.peerAddress = address
        self.server = server
        if let ssl {
            SSL_set_fd(ssl, fd)
            SSL_set_accept_state(ssl)
            copenssl_set_nonblocking_writes(ssl)
            copenssl_release_idle_buffers(ssl)
        }
        // Unmanaged: passUnretained, for the read event and the timer here (and the write event
        // in `armWrite`). The loop's connection table keeps this object until `close`, which
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
        event_add(readEvent, nil)
        arm(.idle)
    }

    /// Whether a read buffer is lent to this connection now (tests: an idle one holds none).
    var holdsReadBuffer: Bool { reading != nil }

    /// Waiting between requests with nothing buffered: safe to close without losing work.
    var isIdle: Bool { phase == .idle && start == end && !hasPendingOutput }

    // MARK: - Reading

    fileprivate func readable() {
        if writeWantsRead {
            writeWantsRead = false
            flush()
            if phase == .closed { return }
        }
        if phase == .lingering {
            discardInput()
            return
        }
        guard phase != .closed else { return }
        guard phase != .closing && phase != .handling else {
            // Nothing is read now: stop the (level-triggered) event instead of spinning on it.
            pauseReading()
            return
        }
        let received = receive()
        if received == 0 {
            // End of stream: the client sends no more (half-closed or gone). Requests already
            // buffered are still answered and queued answers still sent; then it closes.
            inputClosed = true
            pauseReading()
            processInput()
            return
        }
        if received > 0 {
            processInput()
        } else {
            // Nothing arrived (a TLS handshake step, a spurious wake-up): hold no buffer.
            returnStorage()
        }
    }

    /// The client's end of stream arrived.
    private var inputClosed = false

    /// After end of stream with nothing left to answer: close once the output is out.
    private func endAfterOutput() {
        if hasPendingOutput {
            phase = .closing
        } else {
            close()
        }
    }

    /// Reads once (TLS: until the session has no more decrypted bytes) into the buffer.
    /// Returns the bytes read, 0 at end of stream or on an error (the caller closes), -1
    /// when nothing was there.
    private func receive() -> Int {
        borrowStorage()
        var total = 0
        while true {
            guard makeRoom() else {
                // Only a chunked body's framing (many small chunks with long extensions)
                // can get here: heads and declared lengths are refused before.
                refuse(phase == .body ? .bodyTooLarge : .headTooLarge)
                return -1
            }
            let room = min(input.count - end, Self.readChunk)
            let count: Int = input.withUnsafeMutableBytes { bytes in
                let target = bytes.baseAddress! + end
                if let ssl { return Int(SSL_read(ssl, target, Int32(room))) }
                return Glibc.read(fd, target, room)
            }
            if count > 0 {
                end += count
                total += count
                if let ssl, SSL_pending(ssl) > 0 { continue }
                return total
            }
            if let ssl {
                switch SSL_get_error(ssl, Int32(count)) {
                case SSL_ERROR_WANT_READ:
                    return total > 0 ? total : -1
                case SSL_ERROR_WANT_WRITE:
                    readWantsWrite = true
                    armWrite()
                    return total > 0 ? total : -1
                default:
                    ERR_clear_error()
                    return total > 0 ? total : 0
                }
            }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { return total > 0 ? total : -1 }
            return total > 0 ? total : 0
        }
    }

    /// Makes space after `end`: moves the current request to the front, or grows the
    /// buffer up to what the limits allow. False when the request is larger than any
    /// request the limits admit (the decoder refuses such requests before this point for
    /// heads and declared lengths; this bounds chunked bodies' framing too). The body's share
    /// is this request's own limit once its head is read (an upload route's is larger), the
    /// ordinary one before.
    private func makeRoom() -> Bool {
        if end < input.count { return true }
        if start > 0 {
            compact()
            return true
        }
        let limits = server.core.requestLimits
        let body = phase == .body ? decoder.head.maxBodyBytes : limits.maxBodyBytes
        let ceiling = limits.maxHeadBytes * 2 + body * 2 + Self.readChunk
        guard input.count < ceiling else { return false }
        input.append(contentsOf: repeatElement(0, count: min(input.count, ceiling - input.count)))
        return true
    }

    /// Takes a read buffer and a decoder from the loop's pool when this connection holds
    /// none (it gave them back when it had nothing pending).
    private func borrowStorage() {
        if reading == nil { reading = server.inputs.lend() }
    }

    /// Gives the read buffer and the decoder back to the loop's pool when nothing of a
    /// request is buffered and the decoder is between messages.
    private func returnStorage() {
        guard let lent = reading, lent.start == lent.end, lent.decoder.isBetweenMessages else { return }
        reading = nil
        server.inputs.giveBack(lent)
    }

    private func compact() {
        guard start > 0 else { return }
        let count = end - start
        if count > 0 {
            input.withUnsafeMutableBytes { bytes in
                bytes.baseAddress!.copyMemory(from: bytes.baseAddress! + start, byteCount: count)
            }
        }
        start = 0
        end = count
    }

    /// Decodes and answers every complete request buffered, in order, until one is being
    /// handled asynchronously, the output is over its bound, or more bytes are needed.
    private func processInput() {
        guard !processing else { return }
        processing = true
        defer {
            processing = false
            countIdle(isIdle)
        }
        while true {
            switch phase {
            case .idle, .head, .body: break
            case .handling, .closing, .lingering, .closed: return
            }
            // A file still being sent must finish before any later answer's bytes.
            if pendingFile != nil || pendingBytes > server.core.configuration.maxOutputBytes {
                pauseReading()
                return
            }
            if start == end && phase == .idle && inputClosed {
                endAfterOutput()
                return
            }
            if start == end && phase == .idle {
                returnStorage()
                resumeReading()
                armReading(.idle)
                return
            }
            let result = input.withUnsafeMutableBytes { bytes in
                decoder.decode(UnsafeMutableRawBufferPointer(rebasing: bytes[start..<end]))
            }
            switch result {
            case .needMore:
                if inputClosed {
                    // A request that never will be complete.
                    endAfterOutput()
                    return
                }
                if phase == .idle {
                    phase = .head
                    reading!.headStarted = .now
                }
                armReading(phase == .head ? .head : .body)
                resumeReading()
                return
            case .head(let head):
                phase = .body
                if head.hasUnsupportedExpectation {
                    refuse(status: 417, detail: "Only Expect: 100-continue is supported.")
                    return
                }
                if head.expectsContinue && head.minorVersion >= 1 && end - start == head.length {
                    send(raw: HTTPStatus.continueResponse)
                    // The write failed (the client reset): the connection is gone.
                    if phase == .closed { return }
                }
                armReading(.body)
            case .complete(let message):
                let routing = classify(message)
                if !answerStored(message, routing: routing) { dispatch(message, routing: routing) }
            case .failure(let error):
                refuse(error)
                return
            }
        }
    }

    // MARK: - Requests

    /// The application's one classification of `message`: its route, and the rate-limit
    /// budget it spent. Once per request, before either answer path.
    private func classify(_ message: RequestMessage) -> RequestRouting {
        input.withUnsafeBytes { all in
            let bytes = UnsafeRawBufferPointer(rebasing: all[start..<end])
            return server.core.application.classify(RequestBytes(buffer: bytes, head: message.head), peer: peerAddress)
        }
    }

    /// Hands one complete request to the application, copied out of the buffer. The answer
    /// comes back through `respond`, on the spot or later.
    private func dispatch(_ message: RequestMessage, routing: RequestRouting) {
        disarmReading()
        phase = .handling
        let core = server.core
        let started = ContinuousClock.now
        let request: GatewayRequest = input.withUnsafeBytes { all in
            let bytes = UnsafeRawBufferPointer(rebasing: all[start..<end])
            return Self.request(message, in: bytes, peer: peer)
        }
        start += message.length
        // The request is copied out: unless a pipelined one follows, the buffer goes back
        // while the handler works.
        returnStorage()
        let keepAlive = message.head.keepAlive && !core.drain.isDraining
        let exchange = ServerExchange(
            connection: self, method: request.method, path: request.path, requestID: request.requestID, traceID: request.trace.traceID,
            acceptsGzip: AcceptEncoding.allowsGzip(request.headers["Accept-Encoding"]), started: started,
            keepAlive: keepAlive, http10: message.head.minorVersion == 0)
        exchange.rateLimit = routing.rateLimit
        exchange.route = routing.label
        core.inFlight.add(1, ordering: .relaxed)
        core.application.handle(request, routing: routing, services: server.services, responder: Responder(sink: exchange, requestID: request.requestID))
        if phase == .handling { pauseReading() }
    }

    /// Answers `message` from what a stored-answer handler holds (health, a cache hit),
    /// straight from the connection's buffer: nothing is copied out, nothing formatted but
    /// the per-request fields, nothing allocated. False when no handler answered; the
    /// request then goes to `dispatch`.
    private func answerStored(_ message: RequestMessage, routing: RequestRouting) -> Bool {
        let core = server.core
        guard message.body.isEmpty else { return false }
        let started = ContinuousClock.now
        var answer = StoredAnswer(head: server.head, filesAllowed: ssl == nil)
        server.head = []
        answer.head.removeAll(keepingCapacity: true)
        var isHead = false
        var pathForLog = ""
        var traceForLog = ""
        var idRange = 0..<0
        let logs = core.logger.logLevel <= .info
        let label: String? = input.withUnsafeBytes { all in
            let bytes = UnsafeRawBufferPointer(rebasing: all[start..<end])
            let method = message.head.method
            isHead = method.equals("HEAD", in: bytes)
            guard isHead || method.equals("GET", in: bytes) else { return nil }
            let request = RequestBytes(buffer: bytes, head: message.head)
            guard core.application.answerStored(request, routing: routing, into: &answer) else { return nil }
            if logs {
                pathForLog = String(decoding: request.path, as: UTF8.self)
                traceForLog = TraceContext.from(
                    traceparent: request.header("traceparent").map { String(decoding: $0, as: UTF8.self) }, tracestate: nil).traceID
            }
            // The per-request fields: the client's id or a new one, then Date and length.
            answer.append(Self.requestIDName)
            let idStart = answer.head.count
            if let id = request.acceptableRequestID {
                answer.head.append(contentsOf: id)
            } else {
                RequestID.appendGenerated(to: &answer.head)
            }
            idRange = idStart..<answer.head.count
            answer.head.append(contentsOf: ResponseHeadWriter.crlf)
            routing.rateLimit?.append(to: &answer.head)
            return routing.label
        }
        guard let label else {
            server.head = answer.head
            return false
        }
        disarmReading()
        start += message.length
        let closeAfter = !message.head.keepAlive || core.drain.isDraining
        answer.append(server.currentDateField())
        let bodyLength = answer.file?.bodyLength ?? answer.body.count
        if !HTTPStatus.hasNoContent(answer.status) { ResponseHeadWriter.appendContentLength(bodyLength, to: &answer.head) }
        if closeAfter {
            answer.append(Self.connectionClose)
        } else if message.head.minorVersion == 0 {
            answer.append(Self.connectionKeepAlive)
        }
        ResponseHeadWriter.appendEnd(to: &answer.head)
        phase = .handling
        let sendsBody = !isHead && !HTTPStatus.hasNoContent(answer.status)
        if let file = answer.file, sendsBody {
            send(head: answer.head, file: file)
        } else {
            send(head: answer.head, body: sendsBody ? answer.body : [])
        }
        let method: HTTPMethod = isHead ? .head : .get
        let elapsed = ContinuousClock.now - started
        server.requestMetrics.record(
            route: label, method: method, status: answer.status, duration: elapsed, sentBytes: isHead ? 0 : bodyLength,
            uncompressedBytes: isHead ? 0 : answer.gzipOf ?? bodyLength, gzip: answer.gzipOf != nil)
        if logs {
            ServerExchange.log(
                core.logger,
                AccessLine(
                    method: method, path: pathForLog, route: label, status: answer.status, bytes: isHead ? 0 : bodyLength,
                    cache: answer.fromCache ? "hit" : nil, client: peer,
                    requestID: String(decoding: answer.head[idRange], as: UTF8.self), traceID: traceForLog),
                elapsed: elapsed)
        }
        server.head = answer.head
        if phase == .closed { return true }
        if closeAfter {
            phase = .closing
            pauseReading()
            if !hasPendingOutput { finishClosing() }
        } else {
            phase = .idle
        }
        return true
    }

    private static let requestIDName: [UInt8] = Array("X-Request-ID: ".utf8)

    /// The request in `bytes` (the buffer from the message's first byte) as plain values.
    private static func request(_ message: RequestMessage, in bytes: UnsafeRawBufferPointer, peer: String) -> GatewayRequest {
        let head = message.head
        var headers = HTTPHeaders()
        for field in head.fields {
            headers.add(field.name.string(in: bytes), field.value.string(in: bytes))
        }
        let methodName = head.method.string(in: bytes)
        let method = HTTPMethod(rawValue: methodName)
        let path = head.path.isEmpty ? "/" : head.path.string(in: bytes)
        var request = GatewayRequest(
            method: method ?? .get, path: path, query: head.query.map { $0.string(in: bytes) }, headers: headers,
            body: Array(message.body.bytes(in: bytes)), requestID: RequestID.accept(headers[RequestID.headerName]), peer: peer)
        request.unknownMethod = method == nil ? methodName : nil
        return request
    }

    /// Answers a refused request stream with its problem, then closes.
    private func refuse(_ error: RequestError) {
        if error == .bodyNotAllowed, let answer = traceAnswer() { return refuse(answer) }
        let problem = error.status == 400
            ? GatewayError.malformedRequest(error.detail) : GatewayError(status: error.status, detail: error.detail)
        refuse(problem)
    }

    /// No route serves TRACE. One that carries a body gets what it would get without one
    /// (405 with `Allow` on a known path, 404 elsewhere) rather than a 400 about its body;
    /// as with every refusal, the body is not read and the connection closes. Nil for other
    /// methods (HEAD and CONNECT with a body stay 400: HEAD is served where GET is).
    private func traceAnswer() -> GatewayError? {
        let path: String? = input.withUnsafeBytes { all in
            let bytes = UnsafeRawBufferPointer(rebasing: all[start..<end])
            guard decoder.head.method.equals("TRACE", in: bytes) else { return nil }
            return decoder.head.path.string(in: bytes)
        }
        guard let path else { return nil }
        return server.core.application.refusal(forTracePath: path)
    }

    private func refuse(status: Int, detail: String) {
        refuse(GatewayError(status: status, detail: detail))
    }

    /// Sends `problem` with `Connection: close` and ends the connection; the request id is
    /// the client's when the head got far enough to carry an acceptable one.
    private func refuse(_ problem: GatewayError) {
        guard phase != .closed && phase != .lingering && phase != .closing else { return }
        disarmReading()
        // What the head showed before it failed: the client's request id, and HEAD (whose
        // answer has no content).
        let (clientID, traceparent, isHead): (String?, String?, Bool) = reading == nil ? (nil, nil, false) : input.withUnsafeBytes { all in
            let bytes = UnsafeRawBufferPointer(rebasing: all[start..<end])
            let id = decoder.head.fields.first { $0.name.equalsIgnoringCase("x-request-id", in: bytes) }
                .map { $0.value.string(in: bytes) }
            let trace = decoder.head.fields.first { $0.name.equalsIgnoringCase("traceparent", in: bytes) }
                .map { $0.value.string(in: bytes) }
            return (id, trace, decoder.head.method.equals("HEAD", in: bytes))
        }
        let requestID = RequestID.accept(clientID)
        phase = .handling
        let exchange = ServerExchange(
            connection: self, method: isHead ? .head : .get, path: "-", requestID: requestID,
            traceID: TraceContext.from(traceparent: traceparent, tracestate: nil).traceID,
            acceptsGzip: false, started: .now,
            keepAlive: false, http10: false)
        exchange.route = "malformed"
        server.core.inFlight.add(1, ordering: .relaxed)
        Responder(sink: exchange, requestID: requestID).fail(problem)
    }

    // MARK: - Writing

    /// Writes one answer. On the loop thread, from the exchange, once per request.
    func respond(_ response: GatewayResponse, exchange: ServerExchange) {
        guard phase == .handling else { return }
        if response.dropsConnection {
            reset()
            return
        }
        let closeAfter = !exchange.keepAlive || server.core.drain.isDraining
        let sendsBody = exchange.method != .head && !HTTPStatus.hasNoContent(response.status)
        var head = server.head
        server.head = []
        head.removeAll(keepingCapacity: true)
        ResponseHeadWriter.appendStatusLine(response.status, to: &head)
        var handlerLength: String?
        for field in response.headers {
            if HTTPHeaders.sameName(field.name, "Content-Length") {
                handlerLength = field.value
                continue
            }
            if HTTPHeaders.sameName(field.name, "Connection") || !Self.isSafe(field) { continue }
            ResponseHeadWriter.appendField(field.name, field.value, to: &head)
        }
        head.append(contentsOf: server.currentDateField())
        if !HTTPStatus.hasNoContent(response.status) {
            if exchange.method == .head, let handlerLength, Self.isDigits(handlerLength) {
                ResponseHeadWriter.appendField("Content-Length", handlerLength, to: &head)
            } else {
                ResponseHeadWriter.appendContentLength(response.body.count, to: &head)
            }
        }
        if closeAfter {
            head.append(contentsOf: Self.connectionClose)
        } else if exchange.http10 {
            head.append(contentsOf: Self.connectionKeepAlive)
        }
        ResponseHeadWriter.appendEnd(to: &head)
        send(head: head, body: sendsBody ? response.body : [])
        server.head = head
        if phase == .closed { return }
        if closeAfter {
            phase = .closing
            pauseReading()
            if !hasPendingOutput { finishClosing() }
            return
        }
        phase = .idle
        if !processing {
            resumeReading()
            processInput()
        }
    }

    /// Sends bytes that need no head (`100 Continue`).
    private func send(raw: [UInt8]) {
        send(head: raw, body: [])
    }

    /// Writes `head` and `body` now if nothing is queued, queueing what the socket does not
    /// take; otherwise queues both.
    private func send(head: [UInt8], body: [UInt8]) {
        if !hasPendingOutput && ssl == nil {
            let total = head.count + body.count
            let written = head.withUnsafeBytes { headBytes in
                body.withUnsafeBytes { bodyBytes in
                    var vectors = (
                        iovec(iov_base: UnsafeMutableRawPointer(mutating: headBytes.baseAddress), iov_len: headBytes.count),
                        iovec(iov_base: UnsafeMutableRawPointer(mutating: bodyBytes.baseAddress), iov_len: bodyBytes.count))
                    return withUnsafeMutablePointer(to: &vectors) {
                        $0.withMemoryRebound(to: iovec.self, capacity: 2) { writev(fd, $0, body.isEmpty ? 1 : 2) }
                    }
                }
            }
            if written == total { return }
            if written < 0 && errno != EAGAIN && errno != EINTR {
                close()
                return
            }
            let sent = max(0, written)
            pending.removeAll(keepingCapacity: true)
            pendingOffset = 0
            if sent < head.count {
                pending.append(contentsOf: head[sent...])
                pending.append(contentsOf: body)
            } else {
                pending.append(contentsOf: body[(sent - head.count)...])
            }
            armWrite()
            arm(.write)
            return
        }
        if pending.count == pendingOffset {
            pending.removeAll(keepingCapacity: true)
            pendingOffset = 0
        }
        pending.append(contentsOf: head)
        pending.append(contentsOf: body)
        flush()
    }

    /// Writes `head` now (or queues it), then the file's body from its descriptor with
    /// `sendfile`, queueing what the socket does not take. Plain TCP only (TLS answers never
    /// carry files).
    private func send(head: [UInt8], file: any FileBody) {
        precondition(ssl == nil, "files are sent only on plain connections")
        if !hasPendingOutput {
            // MSG_MORE: the head waits for the file's first bytes, one segment for both.
            let sent = head.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_MORE) | Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno != EAGAIN && errno != EINTR {
                close()
                return
            }
            let taken = max(0, sent)
            if taken < head.count {
                pending.removeAll(keepingCapacity: true)
                pendingOffset = 0
                pending.append(contentsOf: head[taken...])
            }
        } else {
            pending.append(contentsOf: head)
        }
        pendingFile = file
        pendingFileOffset = file.bodyOffset
        pendingFileEnd = file.bodyOffset + file.bodyLength
        flush()
    }

    /// Writes queued output until the socket takes no more.
    private func flush() {
        while pendingOffset < pending.count {
            let count = pending.count - pendingOffset
            let written: Int = pending.withUnsafeBytes { bytes in
                let from = bytes.baseAddress! + pendingOffset
                if let ssl { return Int(SSL_write(ssl, from, Int32(min(count, Int(Int32.max))))) }
                return Glibc.write(fd, from, count)
            }
            if written > 0 {
                pendingOffset += written
                arm(.write)
                continue
            }
            if let ssl {
                switch SSL_get_error(ssl, Int32(written)) {
                case SSL_ERROR_WANT_WRITE:
                    armWrite()
                    arm(.write)
                case SSL_ERROR_WANT_READ:
                    writeWantsRead = true
                    if readPaused {
                        readPaused = false
                        event_add(readEvent, nil)
                    }
                    arm(.write)
                default:
                    ERR_clear_error()
                    close()
                }
                return
            }
            if written < 0 && (errno == EAGAIN || errno == EINTR) {
                armWrite()
                arm(.write)
                return
            }
            close()
            return
        }
        // Queued output is rare (a short write): its storage is not kept.
        pending = []
        pendingOffset = 0
        while let file = pendingFile {
            var offset = off_t(pendingFileOffset)
            let sent = sendfile(fd, file.descriptor, &offset, pendingFileEnd - pendingFileOffset)
            if sent > 0 {
                pendingFileOffset += sent
                if pendingFileOffset >= pendingFileEnd { pendingFile = nil }
                continue
            }
            if sent < 0 && (errno == EAGAIN || errno == EINTR) {
                armWrite()
                arm(.write)
                return
            }
            // An error, or a file shorter than its header said: the answer cannot be finished.
            close()
            return
        }
        // Everything went out.
        disarmWrite()
        switch phase {
        case .closing: finishClosing()
        case .idle, .head, .body:
            disarm()
            if !processing { processInput() }
        case .handling:
            // The handler's answer is still to come: no deadline of the client's runs now.
            disarm()
        default: break
        }
    }

    fileprivate func writable() {
        if readWantsWrite {
            readWantsWrite = false
            if !hasPendingOutput { disarmWrite() }
            readable()
            if phase == .closed { return }
        }
        if hasPendingOutput { flush() }
    }

    /// Arms the write event, making it on first use; when it cannot be made, the connection
    /// closes (the caller checks `phase`, as after any write).
    private func armWrite() {
        guard !writeArmed, phase != .closed else { return }
        if writeEvent == nil {
            // Unmanaged: passUnretained, as for the read event (see init).
            writeEvent = event_new(
                server.loop.base, fd, Int16(EV_WRITE | EV_PERSIST), connectionWriteCallback, Unmanaged.passUnretained(self).toOpaque())
            guard writeEvent != nil else { return close() }
        }
        writeArmed = true
        event_add(writeEvent, nil)
    }

    private func disarmWrite() {
        guard writeArmed, phase != .closed else { return }
        writeArmed = false
        event_del(writeEvent)
    }

    private func pauseReading() {
        guard !readPaused else { return }
        readPaused = true
        event_del(readEvent)
    }

    private func resumeReading() {
        guard readPaused, !inputClosed, phase != .closed else { return }
        readPaused = false
        event_add(readEvent, nil)
    }

    // MARK: - Ending

    /// After the last answer went out: shut the write side and read what the client still
    /// sends for a moment, so a reset does not destroy the answer in flight.
    private func finishClosing() {
        if let ssl { SSL_shutdown(ssl) }
        Glibc.shutdown(fd, Int32(SHUT_WR))
        if inputClosed {
            close()
            return
        }
        phase = .lingering
        lingerBudget = Self.lingerBytes
        resumeReading()
        arm(.linger)
    }

    static let lingerBytes = 256 * 1024
    static let lingerTime: Duration = .seconds(2)

    private func discardInput() {
        var scratch = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        let count = withUnsafeMutableBytes(of: &scratch) { Glibc.read(fd, $0.baseAddress, $0.count) }
        if count > 0 {
            lingerBudget -= count
            if lingerBudget > 0 { return }
        } else if count < 0 && (errno == EAGAIN || errno == EINTR) {
            return
        }
        close()
    }

    /// Drops the connection with a reset and no answer (`GatewayResponse.droppedConnection`).
    private func reset() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close()
    }

    /// Whether this connection is counted in its loop's `idleConnections`.
    private var countedIdle = false

    /// Keeps the loop's count of idle connections (read by other loops at the connection
    /// cap) in step with this connection.
    private func countIdle(_ idle: Bool) {
        guard idle != countedIdle else { return }
        countedIdle = idle
        server.idleConnections.add(idle ? 1 : -1, ordering: .relaxed)
    }

    /// Closes the socket and frees the events. Idempotent; on the loop thread.
    func close() {
        guard phase != .closed else { return }
        countIdle(false)
        phase = .closed
        // The events are freed below: nothing may arm or disarm them any more.
        deadline = .none
        writeArmed = false
        readPaused = true
        if let readEvent { event_free(readEvent) }
        if let writeEvent { event_free(writeEvent) }
        if let timer { event_free(timer) }
        readEvent = nil
        writeEvent = nil
        timer = nil
        if let ssl { SSL_free(ssl) }
        ssl = nil
        Glibc.close(fd)
        pending = []
        pendingFile = nil
        if let lent = reading { server.inputs.giveBack(lent) }
        reading = nil
        server.removed(self)
    }

    // MARK: - Deadlines

    /// Arms a reading deadline (idle, head, body), unless output is still queued: then the
    /// write deadline stands, and `flush` re-arms the reading one once everything is out.
    private func armReading(_ kind: Deadline) {
        guard !hasPendingOutput else { return }
        arm(kind)
    }

    /// Cancels a reading deadline; a write deadline (output still queued) stands.
    private func disarmReading() {
        guard deadline != .write else { return }
        disarm()
    }

    /// Arms the deadline `kind`. Nothing once the connection closed (its timer is freed).
    private func arm(_ kind: Deadline) {
        guard phase != .closed else { return }
        let configuration = server.core.configuration
        let duration: Duration
        switch kind {
        case .none: return disarm()
        case .idle: duration = configuration.idleTimeout
        // The head deadline runs from the head's first byte: re-arming never extends it.
        case .head: duration = max(.zero, configuration.headerTimeout - (.now - (reading?.headStarted ?? .now)))
        case .body: duration = configuration.bodyTimeout
        case .write: duration = configuration.writeTimeout
        case .linger: duration = Self.lingerTime
        }
        deadline = kind
        var tv = timeval(duration)
        event_add(timer, &tv)
    }

    private func disarm() {
        guard deadline != .none else { return }
        deadline = .none
        event_del(timer)
    }

    fileprivate func timedOut() {
        let expired = deadline
        deadline = .none
        switch expired {
        case .head:
            refuse(status: 408, detail: "The request head did not arrive in time.")
        case .body:
            refuse(status: 408, detail: "The request body made no progress in time.")
        case .idle, .write, .linger:
            close()
        case .none:
            break
        }
    }

    // MARK: - Helpers

    /// Header fields a handler made that could split the response are dropped, not sent.
    static func isSafe(_ field: HTTPHeaders.Field) -> Bool {
        !field.name.isEmpty && field.name.utf8.allSatisfy(HTTPSyntax.isTokenByte)
            && field.value.utf8.allSatisfy(HTTPSyntax.isFieldValueByte)
    }

    private static func isDigits(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    private static let connectionClose: [UInt8] = Array("Connection: close\r\n".utf8)
    private static let connectionKeepAlive: [UInt8] = Array("Connection: keep-alive\r\n".utf8)
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
