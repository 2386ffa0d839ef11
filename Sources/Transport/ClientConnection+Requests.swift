import HTTPCodec
import HTTPInterface
import Logging
import Observability
import GatewaySupport

/// What a connection does with a whole request: asks the application to classify it, answers
/// it from what is stored or hands a copy to the application, refuses streams the machine
/// refused, and writes each answer framed by the machine.
extension ClientConnection {
    /// The `handle` step: the application's one classification, then its stored answer, or
    /// else the request copied out and handed to it.
    func handle(_ message: RequestMessage) {
        var routing = input.withUnsafeBytes { all in
            let bytes = UnsafeRawBufferPointer(rebasing: all[start..<end])
            return server.core.application.classify(RequestBytes(buffer: bytes, head: message.head), peer: peerAddress)
        }
        if !answerStored(message, routing: &routing) { dispatch(message, routing: routing) }
    }

    /// Hands one complete request to the application, copied out of the buffer. The answer
    /// comes back through `respond`, on the spot or later.
    private func dispatch(_ message: RequestMessage, routing: RequestRouting) {
        let core = server.core
        let started = ContinuousClock.now
        var request: GatewayRequest = input.withUnsafeBytes { all in
            let bytes = UnsafeRawBufferPointer(rebasing: all[start..<end])
            return Self.request(message, in: bytes, peer: peer)
        }
        let recorded = core.startTrace(of: &request, overTLS: socket.isTLS)
        start += message.length
        // The request is copied out: unless a pipelined one follows, the buffer goes back
        // while the handler works.
        returnStorage()
        let exchange = ServerExchange(
            connection: self, wireProtocol: WireProtocol(http1MinorVersion: message.head.minorVersion), method: request.method,
            path: request.path, requestID: request.requestID, traceID: request.trace.traceID,
            acceptsGzip: AcceptEncoding.allowsGzip(request.headers["Accept-Encoding"]), started: started)
        exchange.rateLimit = routing.rateLimit
        exchange.route = routing.label
        exchange.user = routing.subject
        exchange.recorded = recorded
        core.inFlight.add(1, ordering: .relaxed)
        core.application.handle(request, routing: routing, services: server.services, responder: Responder(sink: exchange, requestID: request.requestID))
    }

    /// Answers `message` from what the application holds (health, a cache hit), straight
    /// from the connection's buffer: nothing is copied out, nothing formatted but the
    /// per-request fields, nothing allocated. False when the application declined; the
    /// request then goes to `dispatch`, with what the application found meanwhile in
    /// `routing.storedProbe`.
    private func answerStored(_ message: RequestMessage, routing: inout RequestRouting) -> Bool {
        let core = server.core
        guard message.body.isEmpty else { return false }
        let started = ContinuousClock.now
        var answer = StoredAnswer(head: server.head, filesAllowed: !socket.isTLS)
        server.head = []
        answer.head.removeAll(keepingCapacity: true)
        var isHead = false
        var pathForLog = ""
        var traceForLog = ""
        var idRange = 0..<0
        var recorded: RecordedStored?
        let logs = core.logger.logLevel <= .info
        let answered: Bool = input.withUnsafeBytes { all in
            let bytes = UnsafeRawBufferPointer(rebasing: all[start..<end])
            let method = message.head.method
            isHead = method.equals("HEAD", in: bytes)
            guard isHead || method.equals("GET", in: bytes) else { return false }
            let request = RequestBytes(buffer: bytes, head: message.head)
            guard core.application.answerStored(request, routing: routing, into: &answer) else { return false }
            recorded = core.startTrace(ofStored: request, overTLS: socket.isTLS, text: &server.spanText)
            if logs {
                pathForLog = String(decoding: request.path, as: UTF8.self)
                traceForLog = recorded?.trace.traceID ?? TraceContext.from(
                    traceparent: request.header("traceparent").map { String(decoding: $0, as: UTF8.self) }, tracestate: nil).traceID
            }
            // The per-request fields: the client's id or a new one, then Date and length.
            idRange = answer.appendRequestID(for: request)
            recorded?.noteRequestID(answer.head[idRange], text: &server.spanText)
            routing.rateLimit?.append(to: &answer)
            return true
        }
        guard answered else {
            routing.storedProbe = answer.declined
            answer.declined = nil
            server.head = answer.head
            return false
        }
        start += message.length
        guard case .writeAnswer(let framing) = answerReady(dropsConnection: false).step else {
            server.head = answer.head
            return true
        }
        answer.head.append(contentsOf: server.currentDateField())
        let bodyLength = answer.file?.bodyLength ?? answer.body.count
        let sendsBody = framing.appendEnd(status: answer.status, isHeadRequest: isHead, bodyLength: bodyLength, to: &answer.head)
        let outcome: WriteOutcome
        if let file = answer.file, sendsBody {
            outcome = send(head: answer.head, file: file)
        } else {
            outcome = send(head: answer.head, body: sendsBody ? answer.body : [])
        }
        ServerExchange.recordStored(
            server: server, route: routing.label, method: isHead ? .head : .get,
            wireProtocol: WireProtocol(http1MinorVersion: message.head.minorVersion), status: answer.status, started: started,
            bodyLength: isHead ? 0 : bodyLength, gzipOf: answer.gzipOf, fromCache: answer.fromCache, path: pathForLog,
            requestID: String(decoding: answer.head[idRange], as: UTF8.self), traceID: traceForLog, client: peer, user: routing.subject,
            recorded: recorded, rateLimit: routing.rateLimit)
        server.head = answer.head
        perform(machine.answerWritten(outcome))
        return true
    }

    /// The request in `bytes` (the buffer from the message's first byte) as plain values.
    static func request(_ message: RequestMessage, in bytes: UnsafeRawBufferPointer, peer: String) -> GatewayRequest {
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

    /// Tells the machine an answer is ready, after telling it of a drain it has not heard of
    /// yet (the loop's drain job may not have run): a draining server's answers close.
    private func answerReady(dropsConnection: Bool) -> HTTP1ConnectionStateMachine.Action {
        if server.core.drain.isDraining && !machine.isDraining { perform(machine.drainBegan()) }
        return machine.answerReady(dropsConnection: dropsConnection)
    }

    // MARK: - Refusals

    /// The `refuse` step: answers the refused stream's problem with `Connection: close`; the
    /// request id is the client's when the head got far enough to carry an acceptable one.
    func refuse(_ refusal: HTTP1ConnectionStateMachine.Refusal) {
        let problem: GatewayError
        switch refusal {
        case .malformed(let error):
            if error == .bodyNotAllowed, let trace = traceAnswer() {
                problem = trace
            } else {
                problem = error.status == 400
                    ? GatewayError.malformedRequest(error.detail) : GatewayError(status: error.status, detail: error.detail)
            }
        case .unsupportedExpectation: problem = GatewayError(status: 417, detail: "Only Expect: 100-continue is supported.")
        case .headTimeout: problem = GatewayError(status: 408, detail: "The request head did not arrive in time.")
        case .bodyTimeout: problem = GatewayError(status: 408, detail: "The request body made no progress in time.")
        }
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
        let (trace, recorded) = server.core.refusedTrace(traceparent: traceparent, overTLS: socket.isTLS)
        let exchange = ServerExchange(
            connection: self, wireProtocol: .http11, method: isHead ? .head : .get, path: "-", requestID: requestID,
            traceID: trace.traceID, acceptsGzip: false, started: .now)
        exchange.route = "malformed"
        exchange.recorded = recorded
        server.core.inFlight.add(1, ordering: .relaxed)
        Responder(sink: exchange, requestID: requestID).fail(problem)
    }

    /// No route serves TRACE. One that carries a body gets what it would get without one
    /// (405 with `Allow` on a known path, 404 elsewhere) rather than a 400 about its body;
    /// as with every refusal, the body is not read and the connection closes. Nil for other
    /// methods (HEAD and CONNECT with a body stay 400: HEAD is served where GET is).
    private func traceAnswer() -> GatewayError? {
        guard reading != nil else { return nil }
        let path: String? = input.withUnsafeBytes { all in
            let bytes = UnsafeRawBufferPointer(rebasing: all[start..<end])
            guard decoder.head.method.equals("TRACE", in: bytes) else { return nil }
            return decoder.head.path.string(in: bytes)
        }
        return path.map { server.core.application.refusal(forTracePath: $0) }
    }

    // MARK: - Routed answers

    /// Writes one routed answer (or a refusal's problem). On the loop thread, from the
    /// exchange, once per request; dropped when the connection closed meanwhile.
    func respond(_ response: GatewayResponse, exchange: ServerExchange) {
        let ready = answerReady(dropsConnection: response.dropsConnection)
        guard case .writeAnswer(let framing) = ready.step else { return perform(ready) }
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
        let sendsBody = framing.appendEnd(
            status: response.status, isHeadRequest: exchange.method == .head, bodyLength: response.body.count,
            headContentLength: handlerLength, to: &head)
        let outcome = send(head: head, body: sendsBody ? response.body : [])
        server.head = head
        perform(machine.answerWritten(outcome))
    }

    /// Header fields a handler made that could split the response are dropped, not sent.
    static func isSafe(_ field: HTTPHeaders.Field) -> Bool {
        !field.name.isEmpty && field.name.utf8.allSatisfy(HTTPSyntax.isTokenByte)
            && field.value.utf8.allSatisfy(HTTPSyntax.isFieldValueByte)
    }
}
