import CNghttp2
import HTTPCodec
import HTTPInterface

/// What nghttp2 tells an HTTP/2 connection (`HTTP2SessionTemplate` routes its callbacks
/// here), all on the loop thread inside `nghttp2_session_mem_recv` or `mem_send`. None of these
/// may close the connection (the session is in use): they answer streams, reset them, or ask
/// nghttp2 to end the session, and return nghttp2's codes.
extension HTTP2Connection {
    /// A frame's header arrived: header blocks are sized here, before HPACK decodes them
    /// (the machine ends the connection with GOAWAY(ENHANCE_YOUR_CALM) past twice the limit).
    func frameBegan(_ header: nghttp2_frame_hd) -> Int32 {
        let frame: HTTP2ConnectionStateMachine.HeaderBlockFrame
        switch header.type {
        case UInt8(NGHTTP2_HEADERS.rawValue): frame = .headers
        case UInt8(NGHTTP2_CONTINUATION.rawValue): frame = .continuation
        default: return 0
        }
        let endHeaders = header.flags & UInt8(NGHTTP2_FLAG_END_HEADERS.rawValue) != 0
        if let error = machine.frameBegan(frame, length: header.length, endHeaders: endHeaders, now: .now) {
            nghttp2_session_terminate_session(session, error.rawValue)
        }
        return 0
    }

    /// A request's HEADERS began: a new stream, held to the connection's limits and the
    /// server's body limit until its route is known.
    func headersBegan(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue), frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST else { return 0 }
        let id = frame.pointee.hd.stream_id
        let state = HTTP2StreamStateMachine(limits: machine.limits, maxBodyBytes: server.core.requestLimits.maxBodyBytes, now: .now)
        if let spare = spareStreams.popLast() {
            spare.reuse(id: id, state: state)
            streams[id] = spare
        } else {
            streams[id] = HTTP2Stream(id: id, state: state)
        }
        return 0
    }

    /// One header field: the stream's machine says whether it is the request's (kept until
    /// the header list passes its limit) or a trailer (counted and dropped), and ends the
    /// session for an HPACK bomb.
    func header(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Int32 {
        guard let stream = streams[frame.pointee.hd.stream_id] else { return 0 }
        switch stream.state.fieldDecoded(nameLength: name.count, valueLength: value.count) {
        case .request:
            stream.fields.add(name: name, value: value)
        case .drop:
            break
        case .terminate(let error):
            nghttp2_session_terminate_session(session, error.rawValue)
            return Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        return 0
    }

    /// A whole frame arrived: the end of a header block or of a body, which the stream's
    /// machine turns into a step (`run`), a client's reset (the rapid-reset bucket), or the
    /// ACK of the drain's PING.
    func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        let endStream = header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        switch header.type {
        case UInt8(NGHTTP2_HEADERS.rawValue):
            guard let stream = streams[header.stream_id] else { return 0 }
            machine.headerBlockEnded()
            run(stream.state.headersEnded(endStream: endStream, now: .now), on: stream)
        case UInt8(NGHTTP2_DATA.rawValue):
            guard endStream, let stream = streams[header.stream_id] else { return 0 }
            run(stream.state.dataEnded(), on: stream)
        case UInt8(NGHTTP2_PING.rawValue):
            if header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0 { pingAcknowledged() }
        case UInt8(NGHTTP2_RST_STREAM.rawValue):
            if let error = machine.clientResetStream(now: .now) { nghttp2_session_terminate_session(session, error.rawValue) }
        default:
            break
        }
        return 0
    }

    /// Body bytes of a stream: appended while its body is read, and past the route's limit
    /// 413 with the rest dropped.
    func dataReceived(_ streamID: Int32, _ data: UnsafeRawBufferPointer) -> Int32 {
        guard let stream = streams[streamID] else { return 0 }
        switch stream.state.dataReceived(count: data.count, now: .now) {
        case .append:
            stream.fields.appendBody(data)
        case .drop:
            break
        case .refuse(let refusal):
            refuse(stream, GatewayError(refusal))
        }
        return 0
    }

    /// A frame went out: after the last frame of a refused stream's answer, the stream is reset
    /// (NO_ERROR) when its machine says the client is still sending (RFC 9113 §8.1).
    func frameSent(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        guard header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0, let stream = streams[header.stream_id],
              stream.state.answerEnded()
        else { return 0 }
        nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), header.stream_id, NGHTTP2_NO_ERROR.rawValue)
        return 0
    }

    /// nghttp2 closed a stream (answered and ended, or reset by either side): its state goes;
    /// an answer the application gives later is dropped.
    func streamClosed(_ streamID: Int32) -> Int32 {
        guard let stream = streams.removeValue(forKey: streamID) else { return 0 }
        if spareStreams.count < Self.maxSpareStreams && !closed { spareStreams.append(stream) }
        return 0
    }

    /// How much of the answer's body the next DATA frame carries (at most `max`), sent
    /// without copying (`sendData`); the last frame ends the stream.
    func answerBodyLength(_ streamID: Int32, max: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let stream = streams[streamID] else { return Int(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        let left = stream.answerBody.count - stream.answerOffset
        let length = min(left, max)
        flags.pointee |= NGHTTP2_DATA_FLAG_NO_COPY.rawValue
        if length == left { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return length
    }

    /// One DATA frame of an answer: its 9-byte header, then `length` bytes of the body by
    /// reference (frames carry no padding: the server never asks for it).
    func sendData(_ frame: UnsafeMutablePointer<nghttp2_frame>, header: UnsafeRawBufferPointer, length: Int) -> Int32 {
        guard let stream = streams[frame.pointee.hd.stream_id] else { return Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue) }
        output.append(header)
        output.append(shared: stream.answerBody, range: stream.answerOffset..<(stream.answerOffset + length))
        stream.answerOffset += length
        return 0
    }
}
