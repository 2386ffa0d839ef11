import CEvent
import CNghttp2
import HTTPInterface

/// An HTTP/2 connection's deadlines, on one timer (`HTTP2Connection.timer`): the idle deadline
/// (and, a second into idling, its buffers given back), and while streams are open the header,
/// body and write deadlines and the client's flow control. On the loop thread.
extension HTTP2Connection {
    /// One timer: while no stream is open and nothing is queued, a second of idling (then the
    /// session's large blocks give their pages back) and the idle deadline; otherwise a check
    /// each second of the header, body and write deadlines.
    func armDeadline() {
        guard !closed else { return }
        let idle = isIdle && nghttp2_session_want_write(session) == 0
        if !idle {
            idleSince = nil
            shed = false
        } else if idleSince == nil {
            idleSince = .now
        }
        let wait: Duration
        if let since = idleSince {
            let idleTimeout = server.core.configuration.idleTimeout
            wait = shed ? max(.zero, idleTimeout - (.now - since)) : min(Self.shedAfter, idleTimeout)
        } else {
            wait = .seconds(1)
        }
        var tv = timeval(wait)
        event_add(timer, &tv)
    }

    /// How long a connection idles before its session's large blocks give their pages back.
    static let shedAfter: Duration = .seconds(1)

    func timedOut() {
        let configuration = server.core.configuration
        if lingering { return tearDown() }
        if let since = idleSince, isIdle, !shed, ContinuousClock.now - since < configuration.idleTimeout {
            // Idle a second: nothing is being serialised, so the frame buffer's pages can go,
            // and so can the buffers kept for the next streams (the output's and the spare
            // streams').
            cnghttp2_arena_release(arena)
            output.releaseStorage()
            spareStreams = []
            shed = true
            return armDeadline()
        }
        if isIdle {
            // Idle past its deadline: GOAWAY, then the close once it is out.
            nghttp2_submit_goaway(
                session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nghttp2_session_get_last_proc_stream_id(session), NGHTTP2_NO_ERROR.rawValue, nil, 0)
            drain = .goawaySent
            return endAfterOutput()
        }
        let now = ContinuousClock.now
        if !output.isEmpty && now - lastWrite > configuration.writeTimeout { return tearDown() }
        if let started = headerBlockStarted, now - started > configuration.headerTimeout {
            // A header block (HEADERS and CONTINUATIONs) that does not end: nothing can be
            // answered mid-block, so the connection ends.
            nghttp2_session_terminate_session(session, NGHTTP2_PROTOCOL_ERROR.rawValue)
            return endAfterOutput()
        }
        for stream in streams.values where stream.phase == .body && now - stream.lastProgress > configuration.bodyTimeout {
            refuse(stream, GatewayError(status: 408, detail: "The request body made no progress in time."))
        }
        if flowControlStalled(now: now, limit: configuration.writeTimeout) { return endAfterOutput() }
        sendPending()
    }

    /// Answers held back by flow control (RFC 9113 §5.2): a stream whose window stays at 0
    /// with its answer unsent for `limit` is reset (CANCEL); when the connection's window
    /// stays at 0 that long with answers waiting, the session ends (GOAWAY, then close).
    /// True when the session ended.
    private func flowControlStalled(now: ContinuousClock.Instant, limit: Duration) -> Bool {
        var waiting = false
        for stream in streams.values where stream.answerOffset < stream.answerBody.count {
            waiting = true
            guard nghttp2_session_get_stream_remote_window_size(session, stream.id) <= 0 else {
                stream.stalledSince = nil
                continue
            }
            let since = stream.stalledSince ?? now
            stream.stalledSince = since
            if now - since > limit {
                nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.id, NGHTTP2_CANCEL.rawValue)
            }
        }
        guard waiting, nghttp2_session_get_remote_window_size(session) <= 0 else {
            connectionStalledSince = nil
            return false
        }
        let since = connectionStalledSince ?? now
        connectionStalledSince = since
        guard now - since > limit else { return false }
        nghttp2_session_terminate_session(session, NGHTTP2_ENHANCE_YOUR_CALM.rawValue)
        return true
    }
}
