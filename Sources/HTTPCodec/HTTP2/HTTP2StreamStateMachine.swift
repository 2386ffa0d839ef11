/// One HTTP/2 request stream as the gateway sees it, without I/O: its phases (head, body,
/// answered), every bound it is held to, and what the driver does at each event. nghttp2 keeps
/// the stream's protocol state (RFC 9113 §5.1) and flow control; this value decides:
///
/// - the header list size (431 on the stream, GOAWAY(ENHANCE_YOUR_CALM) for fields far past
///   it: an HPACK bomb), for the head and for trailers alike;
/// - the body limit, first the server's and then the route's once the head is read (413 for
///   a declared length over it, or when the DATA passes it);
/// - the body deadline (408) and the zero-window deadline of an answer held back by the
///   client's flow control (the stream is reset with CANCEL);
/// - refusals while the client is still sending: the stream is reset with NO_ERROR once the
///   answer's last frame is out (RFC 9113 §8.1), so the client stops sending a body nobody
///   reads.
///
/// ## Contract
/// - Owned by one stream of one connection, on that connection's loop thread; `now` is the
///   loop's reading of `ContinuousClock`, never earlier than the last one given.
/// - The driver reports each decoded field (``fieldDecoded(nameLength:valueLength:)``), the
///   end of each HEADERS block (``headersEnded(endStream:now:)``), each DATA chunk
///   (``dataReceived(count:now:)``) and a DATA frame with END_STREAM (``dataEnded()``), the
///   head it read when asked (``headRead(_:declaredContentLength:)``), refusals of its own
///   (``refused()``), the answer's last frame going out (``answerEnded()``), and on the
///   connection's timer ``deadlineFired(now:)`` and ``windowChecked(closed:now:)``.
/// - A ``Step/refuse(_:)`` or ``DataStep/refuse(_:)`` has already moved the stream to
///   `.answered`: the driver answers with the refusal's status and detail and nothing else.
/// - Plain value, trivially copied; nothing is allocated.
public struct HTTP2StreamStateMachine: Sendable {
    public enum Phase: Sendable, Equatable {
        /// HEADERS (and CONTINUATION) being read.
        case head
        /// The head is read; DATA (and trailers) may follow.
        case body
        /// The request was handed on or refused; what else arrives is dropped.
        case answered
    }

    /// Why a stream is refused; the driver answers with its ``status`` and ``detail`` (as
    /// problem+json). Plain cases, so that steps stay trivial values on the hot path: the
    /// detail is written only for a refusal.
    public enum Refusal: Sendable, Equatable {
        /// The request's fields passed the header list limit (431).
        case fieldsTooLarge(limit: Int)
        /// The trailers passed it (431, as HTTP/1.1 answers for its trailers).
        case trailersTooLarge
        /// The decoder refused the head, with its own status.
        case head(RequestError)
        /// The head could not be read whole (400).
        case malformedHead
        /// The body passed the route's limit, declared or sent (413).
        case bodyTooLarge(limit: Int)
        /// The body made no progress within the body deadline (408).
        case bodyTimedOut

        public var status: Int {
            switch self {
            case .fieldsTooLarge, .trailersTooLarge: 431
            case .head(let error): error.status
            case .malformedHead: 400
            case .bodyTooLarge: 413
            case .bodyTimedOut: 408
            }
        }

        public var detail: String {
            switch self {
            case .fieldsTooLarge(let limit): "The request's header fields are larger than \(limit) bytes."
            case .trailersTooLarge: RequestError.headTooLarge.detail
            case .head(let error): error.detail
            case .malformedHead: "The request head is malformed."
            case .bodyTooLarge(let limit): "The request body is larger than \(limit) bytes."
            case .bodyTimedOut: "The request body made no progress in time."
            }
        }
    }

    /// What the driver does with a field HPACK decoded.
    public enum FieldStep: Sendable, Equatable {
        /// One of the request's fields: it goes to the request (`HTTP2RequestAssembly`).
        case request
        /// A trailer field (or one after the answer began): counted here, dropped.
        case drop
        /// End the session with this error (fields far past the limit).
        case terminate(HTTP2ConnectionStateMachine.ErrorCode)
    }

    /// What the driver does when a header block ended or the body did.
    public enum Step: Sendable, Equatable {
        /// Nothing now.
        case none
        /// The head is complete and a body follows: read the head
        /// (`HTTP2RequestAssembly.head(limits:)`) and report it with
        /// ``headRead(_:declaredContentLength:)``.
        case readHead
        /// The request is whole: read it and hand it to the application.
        case handle
        /// Answer with this problem.
        case refuse(Refusal)
    }

    /// What the driver does with a chunk of DATA.
    public enum DataStep: Sendable, Equatable {
        /// Append it to the request's body.
        case append
        /// Drop it (no body is being read).
        case drop
        /// Answer with this problem; the rest of the body is dropped.
        case refuse(Refusal)
    }

    /// `--max-header-bytes`: the header list size a request's fields (and, apart, its
    /// trailers) may reach.
    public let maxHeadBytes: Int
    public let bodyTimeout: Duration
    /// The zero-window deadline (the write deadline).
    public let writeTimeout: Duration
    public private(set) var phase = Phase.head
    /// The body limit: the server's until the head is read, then the route's.
    public private(set) var maxBodyBytes: Int
    /// The header list size of the request's fields, as RFC 9113 §6.5.2 counts it (name +
    /// value + 32 per field).
    public private(set) var headBytes = 0
    /// Bytes of fields after the head (trailers), each counted as its HTTP/1.1 line would be
    /// (name + value + 4), as HTTP/1.1's chunked trailers are; they are dropped.
    public private(set) var trailerBytes = 0
    public private(set) var bodyBytes = 0
    /// When the body last grew (or the head ended): the body deadline runs from here.
    public private(set) var lastProgress: ContinuousClock.Instant
    /// The client ended its side (END_STREAM received).
    public private(set) var clientEnded = false
    /// Reset with NO_ERROR once the answer's last frame is out.
    public private(set) var resetAfterAnswer = false
    /// Since when the client's window for this stream has been 0 with the answer unsent.
    public private(set) var stalledSince: ContinuousClock.Instant?

    public init(maxHeadBytes: Int, maxBodyBytes: Int, bodyTimeout: Duration, writeTimeout: Duration, now: ContinuousClock.Instant) {
        self.maxHeadBytes = maxHeadBytes
        self.maxBodyBytes = maxBodyBytes
        self.bodyTimeout = bodyTimeout
        self.writeTimeout = writeTimeout
        lastProgress = now
    }

    /// A stream of a connection held to `limits`, with the server's body limit until its
    /// route is known.
    public init(limits: HTTP2ConnectionStateMachine.Limits, maxBodyBytes: Int, now: ContinuousClock.Instant) {
        self.init(
            maxHeadBytes: limits.maxHeadBytes, maxBodyBytes: maxBodyBytes, bodyTimeout: limits.bodyTimeout, writeTimeout: limits.writeTimeout,
            now: now)
    }

    /// Whether the request's fields passed the limit (they are no longer stored).
    public var headIsOverLimit: Bool { headBytes > maxHeadBytes }

    /// HPACK decoded a field of `nameLength` and `valueLength` bytes on this stream. Past
    /// sixteen times the limit (an HPACK bomb: small blocks that decode to much) the
    /// session ends.
    public mutating func fieldDecoded(nameLength: Int, valueLength: Int) -> FieldStep {
        let size: Int
        let step: FieldStep
        if phase == .head {
            headBytes += nameLength + valueLength + 32
            size = headBytes
            step = .request
        } else {
            trailerBytes += nameLength + valueLength + 4
            size = trailerBytes
            step = .drop
        }
        return size > 16 * maxHeadBytes ? .terminate(.enhanceYourCalm) : step
    }

    /// A HEADERS block (with its CONTINUATIONs) ended. The head: 431 past the limit, the
    /// request handled when nothing follows, else the head is read first. Trailers (nghttp2
    /// passes them only with END_STREAM, which ends the body): 431 past the limit, else the
    /// request is handled.
    public mutating func headersEnded(endStream: Bool, now: ContinuousClock.Instant) -> Step {
        if endStream { clientEnded = true }
        switch phase {
        case .head:
            if headIsOverLimit {
                return .refuse(refuse(.fieldsTooLarge(limit: maxHeadBytes)))
            }
            if endStream {
                phase = .answered
                return .handle
            }
            phase = .body
            lastProgress = now
            return .readHead
        case .body:
            guard endStream else { return .none }
            if trailerBytes > maxHeadBytes {
                return .refuse(refuse(.trailersTooLarge))
            }
            phase = .answered
            return .handle
        case .answered:
            return .none
        }
    }

    /// The head read after ``Step/readHead``: its route's body limit replaces the server's;
    /// a malformed head is refused with its own status, and a declared length over the limit
    /// with 413 before any DATA is read.
    public mutating func headRead(_ result: RequestDecodeResult, declaredContentLength: Int?) -> Step {
        guard phase == .body else { return .none }
        switch result {
        case .head(let head):
            maxBodyBytes = head.maxBodyBytes
        case .failure(let error):
            return .refuse(refuse(.head(error)))
        case .needMore, .complete:
            return .refuse(refuse(.malformedHead))
        }
        if let declared = declaredContentLength, declared > maxBodyBytes {
            return .refuse(refuse(.bodyTooLarge(limit: maxBodyBytes)))
        }
        return .none
    }

    /// `count` bytes of DATA arrived: appended while the body is read and stays within the
    /// limit; past it, 413.
    public mutating func dataReceived(count: Int, now: ContinuousClock.Instant) -> DataStep {
        guard phase == .body else { return .drop }
        guard bodyBytes + count <= maxBodyBytes else { return .refuse(refuse(.bodyTooLarge(limit: maxBodyBytes))) }
        bodyBytes += count
        lastProgress = now
        return .append
    }

    /// A DATA frame with END_STREAM arrived: the request is whole when its body was being read.
    public mutating func dataEnded() -> Step {
        clientEnded = true
        guard phase == .body else { return .none }
        phase = .answered
        return .handle
    }

    /// The driver refuses the stream itself (a request it could not read): nothing more is
    /// read, and while the client still sends, the stream is reset after the answer.
    /// Nothing changes when it was already answered.
    public mutating func refused() {
        guard phase != .answered else { return }
        phase = .answered
        resetAfterAnswer = !clientEnded
    }

    /// The answer's last frame (END_STREAM) went out. True when the stream is to be reset
    /// now with NO_ERROR: it was refused while the client was still sending, and still is.
    public mutating func answerEnded() -> Bool {
        defer { resetAfterAnswer = false }
        return resetAfterAnswer && !clientEnded
    }

    /// The connection's timer fired: a body that made no progress within the body deadline
    /// is refused with 408.
    public mutating func deadlineFired(now: ContinuousClock.Instant) -> Refusal? {
        guard phase == .body, now - lastProgress > bodyTimeout else { return nil }
        return refuse(.bodyTimedOut)
    }

    /// With the answer unsent, the client's window for the stream is `closed` (0 or less).
    /// True when it stayed closed past the write deadline: the driver resets the stream
    /// (CANCEL). An open window starts the count over.
    public mutating func windowChecked(closed: Bool, now: ContinuousClock.Instant) -> Bool {
        guard closed else {
            stalledSince = nil
            return false
        }
        let since = stalledSince ?? now
        stalledSince = since
        return now - since > writeTimeout
    }

    private mutating func refuse(_ refusal: Refusal) -> Refusal {
        refused()
        return refusal
    }
}
