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

    /// A request's HEADERS began: a new stream.
    func headersBegan(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue), frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST else { return 0 }
        let limits = server.core.requestLimits
        let id = frame.pointee.hd.stream_id
        if let spare = spareStreams.popLast() {
            spare.reuse(id: id, maxBodyBytes: limits.maxBodyBytes)
            streams[id] = spare
        } else {
            streams[id] = HTTP2Stream(id: id, maxHeaderListSize: limits.maxHeadBytes, maxBodyBytes: limits.maxBodyBytes)
        }
        return 0
    }

    /// One header field. Past the header list limit fields are counted, not kept; far past
    /// it (an HPACK bomb: small blocks that decode to much) the connection ends. A trailer
    /// field (after the body) is counted and discarded, under the same two bounds.
    func header(_ frame: UnsafePointer<nghttp2_frame>, name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> Int32 {
        guard let stream = streams[frame.pointee.hd.stream_id] else { return 0 }
        let size: Int
        if stream.phase == .head {
            stream.fields.add(name: name, value: value)
            size = stream.fields.headerListSize
        } else {
            // "name: value\r\n", as the HTTP/1.1 decoder counts a trailer line.
            stream.trailerBytes += name.count + value.count + 4
            size = stream.trailerBytes
        }
        if size > 16 * server.core.requestLimits.maxHeadBytes {
            nghttp2_session_terminate_session(session, NGHTTP2_ENHANCE_YOUR_CALM.rawValue)
            return Int32(NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE.rawValue)
        }
        return 0
    }

    /// A whole frame arrived: a request's head (answered when it has no body, else checked
    /// against the limits), the end of its body, or the ACK of the drain's PING.
    func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        let endStream = header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        switch header.type {
        case UInt8(NGHTTP2_HEADERS.rawValue):
            guard let stream = streams[header.stream_id] else { return 0 }
            machine.headerBlockEnded()
            switch stream.phase {
            case .head:
                headEnded(stream, endStream: endStream)
            case .body:
                // Trailers: nghttp2 lets them through only with END_STREAM, which ends the
                // body; over the head's limit, 431 as HTTP/1.1 answers.
                guard endStream else { return 0 }
                if stream.trailerBytes > server.core.requestLimits.maxHeadBytes {
                    refuse(stream, GatewayError(status: RequestError.headTooLarge.status, detail: RequestError.headTooLarge.detail))
                } else {
                    stream.phase = .answered
                    handle(stream)
                }
            case .answered:
                break
            }
        case UInt8(NGHTTP2_DATA.rawValue):
            guard endStream, let stream = streams[header.stream_id], stream.phase == .body else { return 0 }
            stream.phase = .answered
            handle(stream)
        case UInt8(NGHTTP2_PING.rawValue):
            if header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0 { pingAcknowledged() }
        case UInt8(NGHTTP2_RST_STREAM.rawValue):
            if let error = machine.clientResetStream(now: .now) { nghttp2_session_terminate_session(session, error.rawValue) }
        default:
            break
        }
        return 0
    }

    /// Body bytes of a stream; past the route's limit, 413 and the rest dropped.
    func dataReceived(_ streamID: Int32, _ data: UnsafeRawBufferPointer) -> Int32 {
        guard let stream = streams[streamID], stream.phase == .body else { return 0 }
        guard stream.fields.bodyCount + data.count <= stream.maxBodyBytes else {
            refuse(stream, GatewayError(status: 413, detail: "The request body is larger than \(stream.maxBodyBytes) bytes."))
            return 0
        }
        stream.fields.appendBody(data)
        stream.lastProgress = .now
        return 0
    }

    /// A frame went out: after a refused stream's answer, the stream is reset (NO_ERROR), so
    /// the client stops sending a body nobody reads (RFC 9113 §8.1).
    func frameSent(_ frame: UnsafePointer<nghttp2_frame>) -> Int32 {
        let header = frame.pointee.hd
        guard header.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0, let stream = streams[header.stream_id],
              stream.resetAfterAnswer
        else { return 0 }
        stream.resetAfterAnswer = false
        if nghttp2_session_get_stream_remote_close(session, header.stream_id) == 0 {
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), header.stream_id, NGHTTP2_NO_ERROR.rawValue)
        }
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
