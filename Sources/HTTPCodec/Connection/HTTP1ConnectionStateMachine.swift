/// The logic of one HTTP/1.1 server connection, without I/O: a value that takes events (facts
/// the driver observed) and returns, for each, one ``Action`` (what the driver does next).
///
/// The driver owns the socket (plain or TLS), the input buffer, the `RequestDecoder`, the
/// output queue, the read and write events and the timer; the machine owns every decision:
/// when to read, decode, answer, pause or resume reading, which deadline runs, when to send
/// `100 Continue`, when to refuse, linger or close.
///
/// ## Contract
/// - All calls on one thread (the connection's loop). Each event returns one ``Action``; the
///   driver applies ``Action/reading``, then ``Action/deadline``, then performs
///   ``Action/step``. A step that says "report" obliges the driver to send that event next.
/// - Events the driver raises from the outside: ``start()`` once; ``readable()`` when the
///   read event fires; ``outputFlushed(_:)`` after writing queued output when the write event
///   fires (or TLS needed the socket readable to write and it became so);
///   ``writeNeedsReadable()`` when a TLS write wants the socket readable; ``timerFired()``
///   when the timer fires; ``answerReady(dropsConnection:)`` when a handler's answer arrives;
///   ``drainBegan()`` when the server starts draining; ``close()`` when the connection must go
///   now (server stopping, an idle connection chosen to make room, an I/O error of the driver's
///   own).
/// - Events that report a step's outcome: ``received(_:)``, ``decoded(_:)``,
///   ``continueWritten(_:)``, ``requestHandled()``, ``answerWritten(_:)``.
/// - **Processing**: ``Step/decode`` starts the driver's processing loop (today's
///   `processInput`): decode, report, perform, until a step ends it. An answer given on the
///   spot (during ``Step/handle``) never restarts that loop: its events return no loop step,
///   and the loop goes on when the driver reports ``requestHandled()``.
/// - Once closed, every event returns ``Action/none``.
/// - Nothing is allocated: the machine and its actions are plain values.
///
/// ## State
/// One enum, the phase, says where the connection is in its request/answer cycle. Beside it
/// are the facts that vary independently of the phase: the output still queued (it may be
/// queued in any phase until the connection lingers), whether the client's input ended,
/// whether the server drains, whether the driver is inside its processing loop, and the read
/// interest and deadline the machine last asked the driver for (so it asks only for changes).
public struct HTTP1ConnectionStateMachine: Sendable {
    /// Lingering close: at most this much input is read and dropped...
    public static let lingerBytes = 256 * 1024
    /// ... for at most this long, then the socket closes.
    public static let lingerDuration: Duration = .seconds(2)

    /// `--max-output-bytes`: reading pauses while more output than this is queued (and while a
    /// file is being sent), and resumes once it drained.
    public let maxOutputBytes: Int

    private enum Phase: Sendable, Equatable {
        /// Between requests. `inputBuffered`: bytes of the next request may be buffered (bytes
        /// arrived, or a request was just answered and the next is not decoded yet); false
        /// only once decoding found nothing buffered.
        case idle(inputBuffered: Bool)
        /// Part of a request head is buffered.
        case head
        /// A head with a body was decoded; the body is being read.
        case body
        /// A whole request went to be answered (`keepAlive`: the client's wish; `http10`: an
        /// HTTP/1.0 request). A refusal is answered in this phase too, not kept alive.
        case handling(keepAlive: Bool, http10: Bool)
        /// The answer is being written (between `answerReady` and `answerWritten`).
        case answering(closeAfter: Bool)
        /// The last answer is written (or the client's input ended): the queued output goes
        /// out, then the write side is shut.
        case closing
        /// The write side is shut; input is read and dropped until `budget` bytes are
        /// gone, the client ends its stream, or the linger deadline fires.
        case lingering(budget: Int)
        case closed
    }

    private enum Output: Sendable, Equatable {
        case none
        case queued(bytes: Int, sendingFile: Bool)
    }

    private var phase = Phase.idle(inputBuffered: false)
    private var output = Output.none
    /// The client's end of stream arrived: buffered requests are still answered, no more are read.
    private var inputClosed = false
    private var draining = false
    /// The driver is inside its processing loop (after a `decode` step, until a step ends it).
    private var processing = false
    /// The read interest last asked for (the read event starts not added).
    private var readingPaused = true
    /// The deadline last armed and not cancelled or fired.
    private var deadline: Deadline?

    /// Scratch for the event being handled: the read interest before it, the deadline change.
    private var readingPausedBefore = true
    private var deadlineChange = DeadlineChange.keep

    public init(maxOutputBytes: Int) {
        self.maxOutputBytes = maxOutputBytes
    }

    /// Waiting between requests with nothing buffered and no output queued: safe to close
    /// without losing work (a drain, or room for a new connection).
    public var isIdle: Bool {
        phase == .idle(inputBuffered: false) && output == .none && !processing && !inputClosed
    }

    public var isClosed: Bool { phase == .closed }

    /// Whether ``drainBegan()`` came: every answer says `Connection: close`.
    public var isDraining: Bool { draining }

    /// A head with a body was decoded and the body is being read: the driver sizes its input
    /// buffer for this request's own body limit (``RequestHead/maxBodyBytes``) rather than the
    /// ordinary one.
    public var isReadingBody: Bool { phase == .body }

    // MARK: - Events from the outside

    /// The connection was accepted: start reading, and the idle deadline. Once.
    public mutating func start() -> Action {
        guard phase == .idle(inputBuffered: false), readingPaused, deadline == nil, !processing, !inputClosed else { return .none }
        beginEvent()
        resumeReading()
        arm(.idle)
        return finish(.wait)
    }

    /// The socket is readable. Returns ``Step/receive`` while a request may be read,
    /// ``Step/discard`` while lingering, and pauses reading while an answer is awaited or
    /// the connection is closing (nothing is read then).
    public mutating func readable() -> Action {
        switch phase {
        case .closed:
            return .none
        case .lingering:
            beginEvent()
            return finish(.discard)
        case .handling, .answering, .closing:
            beginEvent()
            pauseReading()
            return finish(.wait)
        case .idle, .head, .body:
            beginEvent()
            return finish(.receive)
        }
    }

    /// A write to the socket wants it readable (TLS renegotiation): reading resumes (even
    /// after the client's end of stream) so the driver hears of it; on the next read event
    /// the driver flushes (reporting ``outputFlushed(_:)``) before it sends ``readable()``.
    public mutating func writeNeedsReadable() -> Action {
        guard phase != .closed else { return .none }
        beginEvent()
        readingPaused = false
        return finish(.wait)
    }

    /// The driver wrote queued output (the write event fired, or see
    /// ``writeNeedsReadable()``). Output still queued re-arms the write deadline; once all is
    /// out, a closing connection shuts its write side, a reading one goes on with its buffered
    /// input (processing resumes), and one awaiting its answer runs no deadline.
    public mutating func outputFlushed(_ outcome: WriteOutcome) -> Action {
        guard phase != .closed else { return .none }
        beginEvent()
        switch outcome {
        case .failed:
            return closeNow(.close)
        case .pending(let bytes, let sendingFile):
            output = .queued(bytes: bytes, sendingFile: sendingFile)
            arm(.write)
            return finish(.wait)
        case .drained:
            output = .none
        }
        switch phase {
        case .closing:
            return finishClosing()
        case .idle, .head, .body:
            disarm()
            if processing { return finish(.wait) }
            processing = true
            return nextInLoop()
        case .handling, .answering:
            disarm()
            return finish(.wait)
        case .lingering, .closed:
            return finish(.wait)
        }
    }

    /// The timer fired (the deadline last armed). Head or body: the stream is refused (408).
    /// Idle, write, linger: the connection closes.
    public mutating func timerFired() -> Action {
        guard phase != .closed else { return .none }
        beginEvent()
        let expired = deadline
        deadline = nil
        switch expired {
        case .head: return refuse(.headTimeout)
        case .body: return refuse(.bodyTimeout)
        case .idle, .write, .linger: return closeNow(.close)
        case nil: return finish(.wait)
        }
    }

    /// A handler's answer arrived (for a request, or for a refusal). Returns
    /// ``Step/writeAnswer(_:)`` with the framing (`Connection: close` when the client asked
    /// for it, for refusals, and while draining), ``Step/reset`` when the answer drops the
    /// connection, or nothing when no answer is awaited (the connection closed meanwhile: the
    /// driver drops the answer). Never changes the read interest or the deadline, so its
    /// caller (the code that has the answer) performs ``Step/writeAnswer(_:)`` itself.
    public mutating func answerReady(dropsConnection: Bool) -> Action {
        guard case .handling(let keepAlive, let http10) = phase else { return .none }
        beginEvent()
        if dropsConnection { return closeNow(.reset) }
        let closeAfter = !keepAlive || draining
        phase = .answering(closeAfter: closeAfter)
        return finish(.writeAnswer(HTTP1ResponseFraming(closeAfter: closeAfter, http10: http10)))
    }

    /// The server began draining: every later answer says `Connection: close`. An idle
    /// connection (``isIdle``) closes now. Calling it again changes nothing more.
    public mutating func drainBegan() -> Action {
        guard phase != .closed else { return .none }
        draining = true
        guard isIdle else { return .none }
        beginEvent()
        return closeNow(.close)
    }

    /// The connection must close now. Returns ``Step/close`` once.
    public mutating func close() -> Action {
        guard phase != .closed else { return .none }
        beginEvent()
        return closeNow(.close)
    }

    // MARK: - Outcomes of steps

    /// What ``Step/receive`` or ``Step/discard`` read.
    ///
    /// Reading a request: bytes start processing (``Step/decode``); end of stream pauses
    /// reading for good and starts processing too (requests already buffered are answered,
    /// queued output is sent, then the connection closes); a full buffer refuses the stream.
    /// Lingering: bytes are counted against ``lingerBytes``; end of stream closes.
    public mutating func received(_ outcome: ReadOutcome) -> Action {
        switch phase {
        case .closed, .handling, .answering, .closing:
            return .none
        case .lingering(let budget):
            beginEvent()
            switch outcome {
            case .bytes(let count):
                guard count > 0 else { return finish(.wait) }
                let left = budget - count
                guard left > 0 else { return closeNow(.close) }
                phase = .lingering(budget: left)
                return finish(.wait)
            case .nothing:
                return finish(.wait)
            case .endOfStream, .bufferFull:
                return closeNow(.close)
            }
        case .idle, .head, .body:
            guard !processing else { return .none }
            beginEvent()
            switch outcome {
            case .bytes(let count) where count > 0:
                if case .idle = phase { phase = .idle(inputBuffered: true) }
                processing = true
                return nextInLoop()
            case .bytes, .nothing:
                return finish(.wait)
            case .endOfStream:
                inputClosed = true
                pauseReading()
                processing = true
                return nextInLoop()
            case .bufferFull:
                return refuse(.malformed(phase == .body ? .bodyTooLarge : .headTooLarge))
            }
        }
    }

    /// What ``Step/decode`` found.
    ///
    /// - Nothing buffered: wait for a request (reading resumes, the idle deadline is armed
    ///   unless output is queued); after end of stream, close once the output is out.
    /// - Need more: the head's clock starts with its first bytes (``DeadlineChange/startHead(arm:)``),
    ///   the head or body deadline is re-armed (unless output is queued), reading resumes;
    ///   after end of stream, close once the output is out (the request never completes).
    /// - Head: an unsupported expectation is refused (417); `100 Continue` is sent for
    ///   `Expect: 100-continue` on HTTP/1.1 when nothing of the body arrived yet; the body
    ///   deadline is armed (unless output is queued); processing goes on.
    /// - Complete: the reading deadline stops (a write deadline stands) and the request is
    ///   handled (``Step/handle``).
    /// - Failure: the stream is refused.
    public mutating func decoded(_ fact: DecodeFact) -> Action {
        guard processing else { return .none }
        switch phase {
        case .idle, .head, .body: break
        default: return .none
        }
        beginEvent()
        switch fact {
        case .nothingBuffered:
            guard case .idle = phase else { return needMore() }
            if inputClosed { return endAfterOutput() }
            phase = .idle(inputBuffered: false)
            resumeReading()
            armReading(.idle)
            processing = false
            return finish(.wait)
        case .needMore:
            return needMore()
        case .head(let expectsContinue, let unsupportedExpectation, let http10, let bodyBytesBuffered):
            phase = .body
            if unsupportedExpectation { return refuse(.unsupportedExpectation) }
            if expectsContinue && !http10 && bodyBytesBuffered == 0 { return finish(.sendContinue) }
            armReading(.body)
            return nextInLoop()
        case .complete(let keepAlive, let http10):
            phase = .handling(keepAlive: keepAlive, http10: http10)
            disarmReading()
            return finish(.handle)
        case .failure(let error):
            return refuse(.malformed(error))
        }
    }

    /// What writing `100 Continue` left queued. The body deadline is armed (the write one
    /// while output is queued) and processing goes on.
    public mutating func continueWritten(_ outcome: WriteOutcome) -> Action {
        guard processing, phase == .body else { return .none }
        beginEvent()
        switch outcome {
        case .failed:
            return closeNow(.close)
        case .drained:
            output = .none
            arm(.body)
        case .pending(let bytes, let sendingFile):
            output = .queued(bytes: bytes, sendingFile: sendingFile)
            arm(.write)
        }
        return nextInLoop()
    }

    /// The ``Step/handle`` step returned: the request was answered on the spot, or its
    /// handler works on. Answered and kept alive: processing goes on with the next buffered
    /// request. Still awaited: reading pauses (pipelined requests wait in the buffer) and
    /// processing ends.
    public mutating func requestHandled() -> Action {
        guard processing else { return .none }
        beginEvent()
        switch phase {
        case .idle, .head, .body:
            return nextInLoop()
        case .handling, .answering:
            pauseReading()
            processing = false
            return finish(.wait)
        case .closing, .lingering:
            processing = false
            return finish(.wait)
        case .closed:
            processing = false
            return .none
        }
    }

    /// What writing the answer (after ``Step/writeAnswer(_:)``) left queued. Output still
    /// queued arms the write deadline; all out cancels it. With `Connection: close`: reading
    /// pauses and, once the output is out, the write side is shut (lingering close). Kept
    /// alive: the connection is between requests; unless the answer was given on the spot
    /// (inside ``Step/handle``), reading resumes and processing starts with what is buffered.
    public mutating func answerWritten(_ outcome: WriteOutcome) -> Action {
        guard case .answering(let closeAfter) = phase else { return .none }
        beginEvent()
        switch outcome {
        case .failed:
            return closeNow(.close)
        case .drained:
            output = .none
            disarm()
        case .pending(let bytes, let sendingFile):
            output = .queued(bytes: bytes, sendingFile: sendingFile)
            arm(.write)
        }
        if closeAfter {
            phase = .closing
            pauseReading()
            if output == .none { return finishClosing() }
            return finish(.wait)
        }
        phase = .idle(inputBuffered: true)
        if processing { return finish(.wait) }
        resumeReading()
        processing = true
        return nextInLoop()
    }

    // MARK: - Transitions

    /// The top of the processing loop: go on decoding unless the phase or the output forbids.
    private mutating func nextInLoop() -> Action {
        switch phase {
        case .idle, .head, .body:
            break
        case .closed:
            processing = false
            return .none
        default:
            processing = false
            return finish(.wait)
        }
        // A file still being sent must finish before any later answer's bytes.
        if case .queued(let bytes, let sendingFile) = output, sendingFile || bytes > maxOutputBytes {
            pauseReading()
            processing = false
            return finish(.wait)
        }
        return finish(.decode)
    }

    private mutating func needMore() -> Action {
        if inputClosed { return endAfterOutput() }
        if case .idle = phase {
            phase = .head
            startHead()
        } else {
            armReading(phase == .head ? .head : .body)
        }
        resumeReading()
        processing = false
        return finish(.wait)
    }

    /// After end of stream with nothing left to answer: close once the output is out.
    private mutating func endAfterOutput() -> Action {
        processing = false
        guard output == .none else {
            phase = .closing
            return finish(.wait)
        }
        return closeNow(.close)
    }

    /// The stream is refused: its problem is answered as a request that closes the connection.
    private mutating func refuse(_ refusal: Refusal) -> Action {
        switch phase {
        case .idle, .head, .body: break
        default: return finish(.wait)
        }
        disarmReading()
        phase = .handling(keepAlive: false, http10: false)
        processing = false
        return finish(.refuse(refusal))
    }

    /// The last answer went out: shut the write side, then linger (or close at once when the
    /// client already ended its stream).
    private mutating func finishClosing() -> Action {
        if inputClosed { return closeNow(.shutOutputAndClose) }
        phase = .lingering(budget: Self.lingerBytes)
        resumeReading()
        arm(.linger)
        return finish(.shutOutput)
    }

    private mutating func closeNow(_ step: Step) -> Action {
        phase = .closed
        processing = false
        deadline = nil
        readingPaused = true
        // The driver frees the events with the socket: nothing to pause or cancel first.
        return Action(reading: .keep, deadline: .keep, step: step)
    }

    // MARK: - Read interest and deadlines

    private mutating func beginEvent() {
        readingPausedBefore = readingPaused
        deadlineChange = .keep
    }

    /// The action of this event: the net change of the read interest, the last deadline change.
    private func finish(_ step: Step) -> Action {
        let reading: ReadingChange = readingPaused == readingPausedBefore ? .keep : readingPaused ? .pause : .resume
        return Action(reading: reading, deadline: deadlineChange, step: step)
    }

    private mutating func pauseReading() {
        readingPaused = true
    }

    private mutating func resumeReading() {
        guard !inputClosed, phase != .closed else { return }
        readingPaused = false
    }

    private mutating func arm(_ kind: Deadline) {
        deadline = kind
        deadlineChange = .arm(kind)
    }

    private mutating func disarm() {
        guard deadline != nil else { return }
        deadline = nil
        deadlineChange = .cancel
    }

    /// A reading deadline (idle, head, body), unless output is queued: then the write
    /// deadline stands, and the reading one is armed once the output drained.
    private mutating func armReading(_ kind: Deadline) {
        guard output == .none else { return }
        arm(kind)
    }

    /// Stops a reading deadline; a write deadline (output still queued) stands.
    private mutating func disarmReading() {
        guard deadline != .write else { return }
        disarm()
    }

    /// The head's clock starts now; its deadline is armed unless output is queued.
    private mutating func startHead() {
        let armed = output == .none
        if armed { deadline = .head }
        deadlineChange = .startHead(arm: armed)
    }
}
