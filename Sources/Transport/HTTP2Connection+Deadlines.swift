import CEvent
import CNghttp2
import HTTPCodec
import HTTPInterface

/// An HTTP/2 connection's deadlines, on the socket's timer, as its state
/// machine decides them: the idle deadline (and, a second into idling, its buffers given back),
/// and while streams are open the header, body and write deadlines and the client's flow
/// control. On the loop thread.
extension HTTP2Connection {
    /// Arms the timer for the machine's next deadline.
    func armDeadline() {
        guard !closed else { return }
        let quiet = isIdle && nghttp2_session_want_write(session) == 0
        socket.armTimer(machine.deadline(quiet: quiet, now: .now))
    }

    func timedOut() {
        if lingering { return tearDown() }
        let now = ContinuousClock.now
        switch machine.deadlineFired(quiet: isIdle, outputQueued: !output.isEmpty, now: now) {
        case .shed:
            // Idle a second: nothing is being serialised, so the frame buffer's pages can go,
            // and so can the buffers kept for the next streams (the output's and the spare
            // streams').
            cnghttp2_arena_release(arena)
            output.releaseStorage()
            spareStreams = []
            return armDeadline()
        case .goaway:
            // Idle past its deadline: GOAWAY, then the close once it is out.
            submitGoaway()
            return endAfterOutput()
        case .tearDown:
            return tearDown()
        case .terminate(let error):
            // A header block (HEADERS and CONTINUATIONs) that does not end: nothing can be
            // answered mid-block, so the connection ends.
            nghttp2_session_terminate_session(session, error.rawValue)
            return endAfterOutput()
        case .checkStreams:
            break
        }
        for stream in streams.values {
            if let refusal = stream.state.deadlineFired(now: now) { refuse(stream, GatewayError(refusal)) }
        }
        if flowControlStalled(now: now) { return endAfterOutput() }
        sendPending()
    }

    /// Answers held back by flow control (RFC 9113 §5.2): a stream whose window stays at 0
    /// with its answer unsent past the write deadline is reset (CANCEL); when the
    /// connection's window stays at 0 that long with answers waiting, the session ends
    /// (GOAWAY(ENHANCE_YOUR_CALM), then close). True when the session ended.
    private func flowControlStalled(now: ContinuousClock.Instant) -> Bool {
        var waiting = false
        for stream in streams.values where stream.answerWaiting {
            waiting = true
            let closed = nghttp2_session_get_stream_remote_window_size(session, stream.id) <= 0
            if stream.state.windowChecked(closed: closed, now: now) {
                nghttp2_submit_rst_stream(
                    session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, HTTP2ConnectionStateMachine.ErrorCode.cancel.rawValue)
            }
        }
        let closed = nghttp2_session_get_remote_window_size(session) <= 0
        guard let error = machine.connectionWindow(closed: closed, answersWaiting: waiting, now: now) else { return false }
        nghttp2_session_terminate_session(session, error.rawValue)
        return true
    }
}
