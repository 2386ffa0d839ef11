/// The bounds an HTTP/2 server connection adds to its protocol library, without I/O: a value
/// that takes events (what the driver observed, with the time it observed them) and returns
/// what to do. nghttp2 keeps framing, HPACK, flow control and stream states; every limit the
/// gateway sets on top of it is decided here:
///
/// - the SETTINGS the server sends (concurrent streams, the header list size, RFC 9218
///   priorities);
/// - a header block's size while it arrives (GOAWAY(ENHANCE_YOUR_CALM) past twice the head
///   limit, before HPACK decodes it) and its deadline (a block that never ends);
/// - rapid reset (a token bucket of `resetBurst`, refilled at `resetRate` per second);
/// - the output waiting to be written (reading pauses past `maxOutputBytes`);
/// - the write deadline, and the zero-window deadline of the connection;
/// - the two-step drain (a notice and a PING, the final GOAWAY on its ACK);
/// - idling: a second into it the driver gives its buffers back, and at the idle deadline the
///   connection ends with GOAWAY.
///
/// ## Contract
/// - All calls on one thread (the connection's loop); `now` is the loop's reading of
///   `ContinuousClock`, never earlier than the last one given.
/// - The driver reports: ``frameBegan(_:length:endHeaders:now:)`` for each HEADERS and
///   CONTINUATION frame header, ``headerBlockEnded()`` when a whole block was received,
///   ``clientResetStream(now:)`` for each RST_STREAM received, ``wrote(now:)`` when output made
///   progress, ``outputQueued(_:)`` after each turn of sending and ``readingNeeded()`` when
///   reading must go on, ``drainBegan(quiet:)`` and ``pingAcknowledged()`` for the drain, and
///   ``deadline(quiet:now:)`` / ``deadlineFired(quiet:outputQueued:now:)`` for its one timer.
///   Per connection, ``connectionWindow(closed:answersWaiting:now:)``; each stream's own
///   bounds (its fields, its body and its deadlines) are its `HTTP2StreamStateMachine`'s.
/// - `quiet` is the driver's fact "no stream is open, nothing is queued or wanted to be
///   written".
/// - Nothing is allocated but ``initialSettings``' list, once per connection: the machine and
///   its answers are plain values.
public struct HTTP2ConnectionStateMachine: Sendable {
    /// RFC 9113 §7 error codes the machine ends sessions and streams with.
    public enum ErrorCode: UInt32, Sendable {
        case protocolError = 0x1
        case cancel = 0x8
        case enhanceYourCalm = 0xb
    }

    /// What the connection is held to.
    public struct Limits: Sendable, Equatable {
        /// `--max-header-bytes`: the header list size advertised and enforced.
        public var maxHeadBytes: Int
        /// `--http2-max-concurrent-streams`.
        public var maxConcurrentStreams: Int
        public var headerTimeout: Duration
        public var bodyTimeout: Duration
        /// Both the write deadline and the zero-window deadline.
        public var writeTimeout: Duration
        public var idleTimeout: Duration
        /// How long a connection idles before its buffers are given back.
        public var shedAfter: Duration
        /// Client resets taken at once, and refilled per second (CVE-2023-44487).
        public var resetBurst: Int
        public var resetRate: Int
        /// `--max-output-bytes`: past this many bytes waiting to be written, nothing more is
        /// read (so no new stream starts) until the client reads its answers.
        public var maxOutputBytes: Int

        public init(
            maxHeadBytes: Int, maxConcurrentStreams: Int, headerTimeout: Duration, bodyTimeout: Duration, writeTimeout: Duration,
            idleTimeout: Duration, shedAfter: Duration = .seconds(1), resetBurst: Int, resetRate: Int, maxOutputBytes: Int
        ) {
            self.maxHeadBytes = maxHeadBytes
            self.maxConcurrentStreams = maxConcurrentStreams
            self.headerTimeout = headerTimeout
            self.bodyTimeout = bodyTimeout
            self.writeTimeout = writeTimeout
            self.idleTimeout = idleTimeout
            self.shedAfter = shedAfter
            self.resetBurst = resetBurst
            self.resetRate = resetRate
            self.maxOutputBytes = maxOutputBytes
        }
    }

    /// A header block's frames.
    public enum HeaderBlockFrame: Sendable {
        case headers
        case continuation
    }

    /// Where the drain is.
    public enum Drain: Sendable, Equatable {
        case none
        /// The shutdown notice and a PING went out; the final GOAWAY follows the PING's ACK.
        case noticeSent
        case goawaySent
    }

    /// What the driver does when the server starts draining.
    public enum DrainStep: Sendable, Equatable {
        /// Nothing: a drain is under way, or the connection ends anyway.
        case none
        /// The final GOAWAY at once (nothing is open).
        case goaway
        /// A GOAWAY notice with the largest stream id, and a PING.
        case noticeAndPing
    }

    /// What the driver does when its timer fires.
    public enum DeadlineStep: Sendable, Equatable {
        /// Give the session's large blocks and the kept buffers back, then re-arm.
        case shed
        /// GOAWAY(NO_ERROR), then close once it is out.
        case goaway
        /// Close at once: the client left written bytes unread past the write deadline.
        case tearDown
        /// End the session with this error (a header block that never ended).
        case terminate(ErrorCode)
        /// Check each stream's body and window deadlines and the connection's window, then
        /// send what is pending.
        case checkStreams
    }

    /// What the driver does with its reading.
    public enum Reading: Sendable, Equatable {
        case pause
        case resume
    }

    public let limits: Limits
    public private(set) var drain = Drain.none
    /// Reading is paused: output over ``Limits/maxOutputBytes`` waits.
    public private(set) var readingPaused = false
    /// Bytes of the header block being read (HEADERS and its CONTINUATIONs), and since when
    /// it has not ended (nil when its last frame had END_HEADERS).
    public private(set) var headerBlockBytes = 0
    public private(set) var headerBlockStarted: ContinuousClock.Instant?
    /// The client's resets the connection may still take at once.
    public private(set) var resetTokens: Double
    private var resetsRefilled: ContinuousClock.Instant
    /// Since when the connection's window has been 0 with answers waiting.
    public private(set) var connectionStalledSince: ContinuousClock.Instant?
    /// When output last made progress.
    public private(set) var lastWrite: ContinuousClock.Instant
    /// Since when the connection has been quiet, and whether it gave its buffers back since.
    public private(set) var idleSince: ContinuousClock.Instant?
    public private(set) var shed = false

    public init(limits: Limits, now: ContinuousClock.Instant) {
        self.limits = limits
        resetTokens = Double(limits.resetBurst)
        resetsRefilled = now
        lastWrite = now
    }

    /// The SETTINGS the server opens with, as (RFC 9113 §6.5.2 identifier, value):
    /// MAX_CONCURRENT_STREAMS, MAX_HEADER_LIST_SIZE, and SETTINGS_NO_RFC7540_PRIORITIES
    /// (RFC 9218: answers of one urgency go out one after the other in the order they became
    /// ready, so on a slow link a screen's images complete one by one).
    public var initialSettings: [(id: Int32, value: UInt32)] {
        [(0x3, UInt32(limits.maxConcurrentStreams)), (0x6, UInt32(limits.maxHeadBytes)), (0x9, 1)]
    }

    /// A HEADERS or CONTINUATION frame's header arrived, before its block is decoded. Returns
    /// the error to end the session with when the block passed twice the head limit (an HPACK
    /// bomb or a CONTINUATION flood), else nil.
    public mutating func frameBegan(_ frame: HeaderBlockFrame, length: Int, endHeaders: Bool, now: ContinuousClock.Instant) -> ErrorCode? {
        switch frame {
        case .headers:
            headerBlockBytes = length
            headerBlockStarted = endHeaders ? nil : now
        case .continuation:
            headerBlockBytes += length
            if endHeaders { headerBlockStarted = nil }
        }
        return headerBlockBytes > 2 * limits.maxHeadBytes ? .enhanceYourCalm : nil
    }

    /// A whole header block was received.
    public mutating func headerBlockEnded() {
        headerBlockStarted = nil
    }

    /// The client reset a stream. Returns `.enhanceYourCalm` once the burst is spent (the
    /// session ends at once: nghttp2's own limit only queues a GOAWAY, which leaves the rest
    /// of the bytes already read to open streams), else nil.
    public mutating func clientResetStream(now: ContinuousClock.Instant) -> ErrorCode? {
        let elapsed = now - resetsRefilled
        resetsRefilled = now
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        resetTokens = min(Double(limits.resetBurst), resetTokens + seconds * Double(limits.resetRate)) - 1
        return resetTokens < 0 ? .enhanceYourCalm : nil
    }

    /// Output made progress.
    public mutating func wrote(now: ContinuousClock.Instant) {
        lastWrite = now
    }

    /// `bytes` wait to be written after a turn of sending: reading pauses past the output
    /// limit and resumes once the client has read enough. Nil: leave reading as it is.
    public mutating func outputQueued(_ bytes: Int) -> Reading? {
        let full = bytes > limits.maxOutputBytes
        guard full != readingPaused else { return nil }
        readingPaused = full
        return full ? .pause : .resume
    }

    /// Reading must go on whatever is queued: a TLS write waits on a read, or the connection
    /// lingers (reading what the client still sends, to drop it). `.resume` when it was
    /// paused.
    public mutating func readingNeeded() -> Reading? {
        guard readingPaused else { return nil }
        readingPaused = false
        return .resume
    }

    /// The server began draining (RFC 9113 §6.8).
    public mutating func drainBegan(quiet: Bool) -> DrainStep {
        guard drain == .none else { return .none }
        drain = quiet ? .goawaySent : .noticeSent
        return quiet ? .goaway : .noticeAndPing
    }

    /// A PING ACK arrived: true when it is the drain's, and the final GOAWAY goes now.
    public mutating func pingAcknowledged() -> Bool {
        guard drain == .noticeSent else { return false }
        drain = .goawaySent
        return true
    }

    /// How long the driver's one timer waits from `now`: while quiet, until a second of
    /// idling (then the buffers go back) and then until the idle deadline; otherwise a second,
    /// for the checks of ``deadlineFired(quiet:outputQueued:now:)``.
    public mutating func deadline(quiet: Bool, now: ContinuousClock.Instant) -> Duration {
        if !quiet {
            idleSince = nil
            shed = false
        } else if idleSince == nil {
            idleSince = now
        }
        guard let since = idleSince else { return .seconds(1) }
        return shed ? max(.zero, limits.idleTimeout - (now - since)) : min(limits.shedAfter, limits.idleTimeout)
    }

    /// The timer fired. `outputQueued`: output waits to be written.
    public mutating func deadlineFired(quiet: Bool, outputQueued: Bool, now: ContinuousClock.Instant) -> DeadlineStep {
        if let since = idleSince, quiet, !shed, now - since < limits.idleTimeout {
            shed = true
            return .shed
        }
        if quiet {
            drain = .goawaySent
            return .goaway
        }
        if outputQueued && now - lastWrite > limits.writeTimeout { return .tearDown }
        if let started = headerBlockStarted, now - started > limits.headerTimeout { return .terminate(.protocolError) }
        return .checkStreams
    }

    /// The connection's window: `closed` (0 or less) while `answersWaiting`. Returns
    /// `.enhanceYourCalm` when it stayed so past the write deadline (the session ends), else
    /// nil.
    public mutating func connectionWindow(closed: Bool, answersWaiting: Bool, now: ContinuousClock.Instant) -> ErrorCode? {
        guard closed && answersWaiting else {
            connectionStalledSince = nil
            return nil
        }
        let since = connectionStalledSince ?? now
        connectionStalledSince = since
        return now - since > limits.writeTimeout ? .enhanceYourCalm : nil
    }
}
