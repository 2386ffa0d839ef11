import CNghttp2
import HTTPCodec
import HTTPInterface
import Logging
import Observability
import GatewaySupport

/// What an HTTP/2 connection does with a stream's request: the same steps as HTTP/1.1
/// (`ClientConnection+Requests.swift`) over the same `RequestHead`: the application's one
/// classification, its stored answer, or the request handed to it; and each answer submitted
/// to nghttp2 on its stream.
extension HTTP2Connection {
    /// Carries out what the stream's machine decided when a header block or the body
    /// ended: reads the head and reports it (the route's body limit, a malformed head or a
    /// declared length over the limit), hands the whole request on, or refuses it.
    func run(_ step: HTTP2StreamStateMachine.Step, on stream: HTTP2Stream) {
        switch step {
        case .none:
            return
        case .readHead:
            let head = stream.fields.head(limits: server.core.requestLimits)
            run(stream.state.headRead(head, declaredContentLength: stream.fields.declaredContentLength), on: stream)
        case .handle:
            handle(stream)
        case .refuse(let refusal):
            refuse(stream, GatewayError(refusal))
        }
    }

    /// The whole request of `stream`, read from its fields and body (`HTTP2RequestAssembly`),
    /// then answered from what the application holds or handed to it.
    func handle(_ stream: HTTP2Stream) {
        let result = stream.fields.request(limits: server.core.requestLimits)
        guard case .complete(let decoded) = result else {
            if case .failure(let error) = result { return refuse(stream, Self.problem(error)) }
            return refuse(stream, GatewayError(status: 400, detail: "The request is malformed."))
        }
        let core = server.core
        // A reference of its own to the stream's bytes while the application reads them: the
        // stream's state may change meanwhile (it cannot be reused before nghttp2 closes it,
        // after this returns), and the head's ranges point into these bytes.
        let bytes = stream.fields.bytes
        bytes.withUnsafeBytes { all in
            var routing = core.application.classify(RequestBytes(buffer: all, head: decoded.head), peer: peerAddress)
            if !answerStored(decoded, in: all, stream: stream, routing: &routing) {
                dispatch(decoded, in: all, stream: stream, routing: routing)
            }
        }
    }

    /// Hands the request to the application; the answer comes back through `respond`.
    private func dispatch(_ message: RequestMessage, in bytes: UnsafeRawBufferPointer, stream: HTTP2Stream, routing: RequestRouting) {
        let core = server.core
        var request = ClientConnection.request(message, in: bytes, peer: peer)
        let recorded = core.startTrace(of: &request, overTLS: socket.isTLS)
        let exchange = ServerExchange(
            connection: self, stream: stream.id, wireProtocol: .http2, method: request.method, path: request.path, requestID: request.requestID,
            traceID: request.trace.traceID, acceptsGzip: AcceptEncoding.allowsGzip(request.headers["Accept-Encoding"]), started: .now)
        exchange.rateLimit = routing.rateLimit
        exchange.route = routing.label
        exchange.user = routing.subject
        exchange.recorded = recorded
        core.inFlight.add(1, ordering: .relaxed)
        core.application.handle(request, routing: routing, services: server.services, responder: Responder(sink: exchange, requestID: request.requestID))
    }

    /// Answers from what the application holds (health, a cache hit): its header fields and
    /// the stored body, which DATA frames send without copying. False when it declined.
    private func answerStored(_ message: RequestMessage, in bytes: UnsafeRawBufferPointer, stream: HTTP2Stream, routing: inout RequestRouting) -> Bool {
        guard message.body.isEmpty else { return false }
        let core = server.core
        let method = message.head.method
        let isHead = method.equals("HEAD", in: bytes)
        guard isHead || method.equals("GET", in: bytes) else { return false }
        let started = ContinuousClock.now
        var answer = StoredAnswer(head: server.head, filesAllowed: false, form: .http2)
        server.head = []
        answer.head.removeAll(keepingCapacity: true)
        let request = RequestBytes(buffer: bytes, head: message.head)
        guard core.application.answerStored(request, routing: routing, into: &answer) else {
            routing.storedProbe = answer.declined
            answer.declined = nil
            server.head = answer.head
            return false
        }
        // The request id and the RateLimit fields, as pairs like the handler's.
        let idRange = answer.appendRequestID(for: request)
        routing.rateLimit?.append(to: &answer)
        var block = server.http2Block
        server.http2Block = HTTP2HeaderBlock()
        block.start(status: answer.status)
        block.add(pairs: answer.head)
        let bodyLength = answer.body.count
        submit(stream, block: &block, body: isHead ? [] : answer.body, contentLength: bodyLength, status: answer.status)
        server.http2Block = block
        let head = answer.head
        var recorded = core.startTrace(ofStored: request, overTLS: socket.isTLS, text: &server.spanText)
        recorded?.noteRequestID(head[idRange], text: &server.spanText)
        ServerExchange.recordStored(
            server: server, route: routing.label, method: isHead ? .head : .get, wireProtocol: .http2, status: answer.status, started: started,
            bodyLength: isHead ? 0 : bodyLength, gzipOf: answer.gzipOf, fromCache: answer.fromCache,
            path: String(decoding: request.path, as: UTF8.self), requestID: String(decoding: head[idRange], as: UTF8.self),
            traceID: recorded?.trace.traceID
                ?? TraceContext.from(traceparent: request.header("traceparent").map { String(decoding: $0, as: UTF8.self) }, tracestate: nil).traceID,
            client: peer, user: routing.subject, recorded: recorded, rateLimit: routing.rateLimit)
        server.head = answer.head
        return true
    }

    /// Writes one routed answer on its stream (`ServerExchange` calls it on the loop thread).
    /// Dropped when the stream or the connection closed meanwhile; an answer that drops its
    /// connection resets the stream instead.
    func respond(_ response: GatewayResponse, exchange: ServerExchange) {
        guard !closed, let stream = streams[exchange.stream] else { return }
        if response.dropsConnection {
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, NGHTTP2_INTERNAL_ERROR.rawValue)
            return sendPending()
        }
        var block = server.http2Block
        server.http2Block = HTTP2HeaderBlock()
        block.start(status: response.status)
        var declared: Int?
        for field in response.headers {
            if HTTPHeaders.sameName(field.name, "Content-Length") {
                declared = Int(field.value)
                continue
            }
            guard ClientConnection.isSafe(field) else { continue }
            block.add(name: field.name.utf8, value: field.value.utf8)
        }
        let isHead = exchange.method == .head
        submit(stream, block: &block, body: isHead ? [] : response.body, contentLength: isHead ? declared ?? response.body.count : response.body.count,
               status: response.status)
        server.http2Block = block
        sendPending()
    }

    /// Submits `block` with `date` and `content-length` (none for 1xx, 204 and 304), and the
    /// body when there is one.
    private func submit(_ stream: HTTP2Stream, block: inout HTTP2HeaderBlock, body: [UInt8], contentLength: Int, status: Int) {
        block.addOwn(name: Self.dateName, value: server.currentDate())
        let bodyless = status < 200 || status == 204 || status == 304
        if !bodyless { block.addOwn(name: Self.contentLengthName, value: String(contentLength).utf8) }
        let sendsBody = !bodyless && !body.isEmpty
        stream.answerBody = sendsBody ? body : []
        stream.answerOffset = 0
        // The first answer of each second indexes its unique fields (see HTTP2HeaderBlock);
        // `date` above read the loop's second.
        let second = server.currentSecond
        let indexing = second != uniqueIndexedSecond
        uniqueIndexedSecond = second
        let result: Int32 = block.withNameValues(indexingUnique: indexing) { nvs, count in
            if sendsBody {
                var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: HTTP2SessionTemplate.readAnswerBody)
                return nghttp2_submit_response(session, stream.id, nvs, count, &provider)
            }
            return nghttp2_submit_response(session, stream.id, nvs, count, nil)
        }
        if result != 0 {
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, NGHTTP2_INTERNAL_ERROR.rawValue)
        }
    }

    /// Answers `stream` with `problem` before its request was handed on (or while its body
    /// still arrives: the machine then resets the stream once the answer is out).
    func refuse(_ stream: HTTP2Stream, _ problem: GatewayError) {
        stream.state.refused()
        let requestID = RequestID.accept(stream.fields.requestID.map { String(decoding: $0, as: UTF8.self) })
        let (trace, recorded) = server.core.refusedTrace(
            traceparent: stream.fields.traceparent.map { String(decoding: $0, as: UTF8.self) }, overTLS: socket.isTLS)
        let isHead = stream.fields.hasMethod("HEAD")
        let exchange = ServerExchange(
            connection: self, stream: stream.id, wireProtocol: .http2, method: isHead ? .head : .get, path: "-", requestID: requestID,
            traceID: trace.traceID, acceptsGzip: false, started: .now)
        exchange.route = "malformed"
        exchange.recorded = recorded
        server.core.inFlight.add(1, ordering: .relaxed)
        Responder(sink: exchange, requestID: requestID).fail(problem)
    }

    private static func problem(_ error: RequestError) -> GatewayError {
        GatewayError(status: error.status, detail: error.detail)
    }

    private static let dateName = Array("date".utf8)
    private static let contentLengthName = Array("content-length".utf8)
}

extension GatewayError {
    /// The problem a stream's machine refused the request with.
    init(_ refusal: HTTP2StreamStateMachine.Refusal) {
        self.init(status: refusal.status, detail: refusal.detail)
    }
}
