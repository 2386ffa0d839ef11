import HTTPCodec

/// One HTTP/2 stream of a client's request, from its HEADERS to its close: the fields as they
/// arrive, the body, and the answer being sent. nghttp2 keeps the protocol state of the
/// stream; this keeps what the gateway needs of it.
///
/// Owned by its `HTTP2Connection`, on the loop's thread; when nghttp2 closes the stream it goes
/// back to the connection's spares and serves a later stream (``reuse(id:maxBodyBytes:)``),
/// with its buffers' capacity.
final class HTTP2Stream {
    private(set) var id: Int32
    /// The request's fields and body, in one buffer the stream keeps.
    var fields: HTTP2RequestAssembly
    /// The body limit of this request (its route's), known once the head is read.
    var maxBodyBytes: Int
    /// When the body last grew (or the head ended): the body deadline runs from here.
    var lastProgress: ContinuousClock.Instant = .now

    enum Phase {
        /// HEADERS (and CONTINUATION) being read.
        case head
        /// The head is read; DATA may follow.
        case body
        /// The request went to the application (or was refused); what else arrives is dropped.
        case answered
    }
    var phase = Phase.head
    /// Bytes of trailer fields received (HEADERS after DATA), each counted as its HTTP/1.1
    /// line would be; they are discarded, as HTTP/1.1's chunked trailers are.
    var trailerBytes = 0
    /// Reset with NO_ERROR once the answer's last frame is out: the request was refused while
    /// the client may still be sending it (RFC 9113 §8.1).
    var resetAfterAnswer = false

    /// The answer's body, sent from here in DATA frames without copying.
    var answerBody: [UInt8] = []
    var answerOffset = 0
    /// Since when the client's window for this stream has been 0 with the answer unsent.
    var stalledSince: ContinuousClock.Instant?

    init(id: Int32, maxHeaderListSize: Int, maxBodyBytes: Int) {
        self.id = id
        fields = HTTP2RequestAssembly(maxHeaderListSize: maxHeaderListSize)
        self.maxBodyBytes = maxBodyBytes
    }

    /// Makes a closed stream's object the state of stream `id`: every field as new, the
    /// buffers emptied (a large body's is let go).
    func reuse(id: Int32, maxBodyBytes: Int) {
        self.id = id
        fields.reset()
        self.maxBodyBytes = maxBodyBytes
        lastProgress = .now
        phase = .head
        trailerBytes = 0
        resetAfterAnswer = false
        answerBody = []
        answerOffset = 0
        stalledSince = nil
    }
}
