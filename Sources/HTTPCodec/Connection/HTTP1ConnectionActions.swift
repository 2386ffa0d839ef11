extension HTTP1ConnectionStateMachine {
    /// What the driver does after one event, in this order: change the read interest, change
    /// the deadline timer, then perform ``step``. A plain value (no references, nothing
    /// allocated): one per event.
    public struct Action: Sendable, Equatable {
        public var reading: ReadingChange
        public var deadline: DeadlineChange
        public var step: Step

        public init(reading: ReadingChange = .keep, deadline: DeadlineChange = .keep, step: Step = .wait) {
            self.reading = reading
            self.deadline = deadline
            self.step = step
        }

        /// Nothing to do (every event once the connection is closed).
        public static let none = Action()
    }

    /// The read interest (the socket's read event). The machine keeps track of what it asked
    /// for and asks only for changes.
    public enum ReadingChange: Sendable, Equatable {
        case keep
        /// Stop watching the socket for reading (remove the read event).
        case pause
        /// Watch the socket for reading again (add the read event).
        case resume
    }

    /// The connection's deadlines. One timer serves all of them: arming one replaces the
    /// one armed before.
    public enum Deadline: Sendable, Equatable {
        /// Waiting for the next request: the idle timeout, from now. Fired: close.
        case idle
        /// The request head: the header timeout, counted from the instant the driver noted
        /// at ``DeadlineChange/startHead(arm:)`` (re-arming never extends it: the driver arms
        /// what is left, possibly nothing). Fired: refused with 408.
        case head
        /// The request body: the body timeout, from now (re-armed as the body makes
        /// progress). Fired: refused with 408.
        case body
        /// Output is queued: the write timeout, from now (re-armed after every write that
        /// leaves output queued). Fired: close.
        case write
        /// Lingering close: ``HTTP1ConnectionStateMachine/lingerDuration`` from now. Fired: close.
        case linger
    }

    public enum DeadlineChange: Sendable, Equatable {
        case keep
        /// Remove the timer.
        case cancel
        /// Arm the timer for `deadline` (see ``Deadline`` for its duration).
        case arm(Deadline)
        /// A request's first bytes arrived: note this instant as its head's start, then arm
        /// the head deadline (the whole header timeout) when `arm`; when not, leave the timer
        /// as it is (a write deadline stands while output is queued; the head deadline is
        /// armed later, with what is left of it).
        case startHead(arm: Bool)
    }

    /// What the driver performs after applying the reading and deadline changes. Steps that
    /// say "report" oblige the driver to send that event next, before any other (apart from
    /// the events a `handle` or `writeAnswer` step itself raises, as described there).
    public enum Step: Sendable, Equatable {
        /// Nothing more: return to the event loop. (A driver that lends read buffers may
        /// give the buffer back now if nothing is buffered and the decoder is between
        /// messages.)
        case wait
        /// Read what the stream has into the input buffer (TLS: until the session has no
        /// decrypted bytes left), growing the buffer within the limits; report
        /// ``HTTP1ConnectionStateMachine/received(_:)``.
        case receive
        /// Lingering: read from the socket into scratch space and drop it (TLS too: the raw
        /// bytes); report ``HTTP1ConnectionStateMachine/received(_:)``.
        case discard
        /// Decode the buffered input (or see that nothing is buffered); report
        /// ``HTTP1ConnectionStateMachine/decoded(_:)``.
        case decode
        /// Write `HTTP/1.1 100 Continue` (``HTTPStatus/continueResponse``) after any queued
        /// output; report ``HTTP1ConnectionStateMachine/continueWritten(_:)``.
        case sendContinue
        /// A whole request was decoded: answer it on the spot (a stored answer) or hand it to
        /// its handler. An answer given meanwhile goes through `answerReady` and
        /// `answerWritten` (whose actions the driver performs there); then report
        /// ``HTTP1ConnectionStateMachine/requestHandled()``.
        case handle
        /// Refuse the stream: answer the problem for the refusal (always with
        /// `Connection: close`) through `answerReady` and `answerWritten`, now or later. No
        /// other event is owed.
        case refuse(Refusal)
        /// Write the answer's head, framed by `framing`, and its body; report
        /// ``HTTP1ConnectionStateMachine/answerWritten(_:)``. Returned only by
        /// ``HTTP1ConnectionStateMachine/answerReady(dropsConnection:)``, to the code that holds
        /// the answer.
        case writeAnswer(HTTP1ResponseFraming)
        /// Shut the write side (TLS: send close_notify first); lingering follows: the same
        /// action resumed reading and armed the linger deadline.
        case shutOutput
        /// Shut the write side (TLS: close_notify first), then close.
        case shutOutputAndClose
        /// Close the socket and free everything. The machine is closed.
        case close
        /// Drop the connection with a reset (`SO_LINGER` 0, then close), no answer. The
        /// machine is closed.
        case reset
    }

    /// Why the stream is refused; the driver maps each to its problem answer.
    public enum Refusal: Sendable, Equatable {
        /// The decoder refused the stream, or the request outgrew the largest input buffer
        /// the limits allow (`headTooLarge` while reading the head, `bodyTooLarge` in the
        /// body).
        case malformed(RequestError)
        /// An `Expect` other than `100-continue`: 417.
        case unsupportedExpectation
        /// The head did not arrive within the header timeout: 408.
        case headTimeout
        /// The body made no progress within the body timeout: 408.
        case bodyTimeout
    }
}
