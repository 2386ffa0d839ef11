import HTTPCodec

/// One HTTP/2 stream of a client's request, from its HEADERS to its close: the fields and body
/// as they arrive, the stream's state machine, and the answer being sent. nghttp2 keeps the
/// protocol state of the stream; `state` decides every bound the gateway adds to it.
///
/// Owned by its `HTTP2Connection`, on the loop's thread; when nghttp2 closes the stream it goes
/// back to the connection's spares and serves a later stream (``reuse(id:state:)``), with its
/// buffers' capacity.
final class HTTP2Stream {
    private(set) var id: Int32
    /// The request's fields and body, in one buffer the stream keeps. Unchecked exclusivity,
    /// as `state`'s.
    @exclusivity(unchecked) var fields: HTTP2RequestAssembly
    /// Phases, limits and deadlines of the request, without I/O. Unchecked exclusivity: touched
    /// only on the loop thread, and none of its calls calls back (no dynamic check on each
    /// field of a hit).
    @exclusivity(unchecked) var state: HTTP2StreamStateMachine

    /// The answer's body, sent from here in DATA frames without copying.
    var answerBody: [UInt8] = []
    var answerOffset = 0

    /// Whether part of the answer's body waits to be sent.
    var answerWaiting: Bool { answerOffset < answerBody.count }

    init(id: Int32, state: HTTP2StreamStateMachine) {
        self.id = id
        fields = HTTP2RequestAssembly(maxHeaderListSize: state.maxHeadBytes)
        self.state = state
    }

    /// Makes a closed stream's object the state of stream `id`: every field as new, the
    /// buffers emptied (a large body's is let go).
    func reuse(id: Int32, state: HTTP2StreamStateMachine) {
        self.id = id
        fields.reset()
        self.state = state
        answerBody = []
        answerOffset = 0
    }
}
