import HTTPCodec
import Testing

/// Every transition of the HTTP/2 connection's bounds, without a socket: the instants are
/// made up, so each deadline is checked on its boundary.
@Suite struct HTTP2ConnectionStateMachineTests {
    typealias Machine = HTTP2ConnectionStateMachine
    let t0 = ContinuousClock.now
    let limits = Machine.Limits(
        maxHeadBytes: 1000, maxConcurrentStreams: 100, headerTimeout: .seconds(10), bodyTimeout: .seconds(30), writeTimeout: .seconds(5),
        idleTimeout: .seconds(30), shedAfter: .seconds(1), resetBurst: 3, resetRate: 1, maxOutputBytes: 1000)

    func machine() -> Machine { Machine(limits: limits, now: t0) }

    @Test func opensWithItsSettings() {
        let settings = machine().initialSettings
        #expect(settings.map(\.id) == [0x3, 0x6, 0x9])
        #expect(settings.map(\.value) == [100, 1000, 1])
    }

    /// A header block is sized frame by frame: up to twice the head limit it goes on, one
    /// byte more ends the session with ENHANCE_YOUR_CALM; its deadline runs only while it
    /// has not ended.
    @Test func headerBlocksAreSizedAndTimed() {
        var m = machine()
        #expect(m.frameBegan(.headers, length: 2000, endHeaders: true, now: t0) == nil)
        #expect(m.headerBlockStarted == nil)
        #expect(m.frameBegan(.headers, length: 1500, endHeaders: false, now: t0) == nil)
        #expect(m.headerBlockStarted == t0)
        #expect(m.frameBegan(.continuation, length: 500, endHeaders: false, now: t0 + .seconds(1)) == nil)
        #expect(m.headerBlockBytes == 2000)
        #expect(m.headerBlockStarted == t0)
        #expect(m.frameBegan(.continuation, length: 1, endHeaders: true, now: t0 + .seconds(2)) == .enhanceYourCalm)
        #expect(m.headerBlockStarted == nil)
        // A new block starts the count again.
        #expect(m.frameBegan(.headers, length: 10, endHeaders: false, now: t0 + .seconds(3)) == nil)
        #expect(m.headerBlockBytes == 10)
        #expect(m.deadlineFired(quiet: false, outputQueued: false, now: t0 + .seconds(13)) == .checkStreams)
        #expect(m.deadlineFired(quiet: false, outputQueued: false, now: t0 + .seconds(13) + .milliseconds(1)) == .terminate(.protocolError))
        m.headerBlockEnded()
        #expect(m.deadlineFired(quiet: false, outputQueued: false, now: t0 + .seconds(20)) == .checkStreams)
    }

    /// Rapid reset: the burst is taken at once, the next reset ends the session; time refills
    /// the bucket at the rate, never past the burst.
    @Test func resetsAreATokenBucket() {
        var m = machine()
        var burst: [Machine.ErrorCode?] = []
        for _ in 0..<3 { burst.append(m.clientResetStream(now: t0)) }
        #expect(burst == [nil, nil, nil])
        #expect(m.resetTokens == 0)
        var later = m
        #expect(later.clientResetStream(now: t0) == .enhanceYourCalm)
        #expect(m.clientResetStream(now: t0 + .seconds(2)) == nil)
        #expect(m.resetTokens == 1)
        #expect(m.clientResetStream(now: t0 + .seconds(2)) == nil)
        #expect(m.clientResetStream(now: t0 + .seconds(2)) == .enhanceYourCalm)
        var rested = machine()
        #expect(rested.clientResetStream(now: t0 + .seconds(60)) == nil)
        #expect(rested.resetTokens == 2)
    }

    /// The two-step drain: with streams open, a notice and a PING, and the final GOAWAY on
    /// the PING's ACK; quiet, the GOAWAY at once; a drain begins once.
    @Test func drainsInTwoSteps() {
        var busy = machine()
        #expect(busy.drainBegan(quiet: false) == .noticeAndPing)
        #expect(busy.drain == .noticeSent)
        #expect(busy.drainBegan(quiet: true) == Machine.DrainStep.none)
        #expect(busy.pingAcknowledged() == true)
        #expect(busy.drain == .goawaySent)
        #expect(busy.pingAcknowledged() == false)
        var quiet = machine()
        #expect(quiet.pingAcknowledged() == false)
        #expect(quiet.drainBegan(quiet: true) == .goaway)
        #expect(quiet.drain == .goawaySent)
        #expect(quiet.drainBegan(quiet: false) == Machine.DrainStep.none)
    }

    /// Idling: a second, then the buffers go back; the rest of the idle deadline, then
    /// GOAWAY. Any activity starts idling over.
    @Test func idlesThenShedsThenEnds() {
        var m = machine()
        #expect(m.deadline(quiet: false, now: t0) == .seconds(1))
        #expect(m.idleSince == nil)
        #expect(m.deadline(quiet: true, now: t0) == .seconds(1))
        #expect(m.idleSince == t0)
        #expect(m.deadlineFired(quiet: true, outputQueued: false, now: t0 + .seconds(1)) == .shed)
        #expect(m.shed)
        #expect(m.deadline(quiet: true, now: t0 + .seconds(1)) == .seconds(29))
        #expect(m.deadlineFired(quiet: true, outputQueued: false, now: t0 + .seconds(30)) == .goaway)
        #expect(m.drain == .goawaySent)
        var active = machine()
        _ = active.deadline(quiet: true, now: t0)
        #expect(active.deadlineFired(quiet: true, outputQueued: false, now: t0 + .seconds(1)) == .shed)
        #expect(active.deadline(quiet: false, now: t0 + .seconds(2)) == .seconds(1))
        #expect(active.idleSince == nil && !active.shed)
        #expect(active.deadline(quiet: true, now: t0 + .seconds(3)) == .seconds(1))
        #expect(active.idleSince == t0 + .seconds(3))
        // An idle deadline shorter than a second: no shedding, the GOAWAY at the deadline.
        var short = Machine(limits: { var l = limits; l.idleTimeout = .milliseconds(500); return l }(), now: t0)
        #expect(short.deadline(quiet: true, now: t0) == .milliseconds(500))
        #expect(short.deadlineFired(quiet: true, outputQueued: false, now: t0 + .milliseconds(500)) == .goaway)
    }

    /// Output left unread past the write deadline closes the connection; progress moves
    /// the deadline; nothing queued, nothing to time.
    @Test func writesAreTimed() {
        var m = machine()
        #expect(m.deadlineFired(quiet: false, outputQueued: true, now: t0 + .seconds(5)) == .checkStreams)
        #expect(m.deadlineFired(quiet: false, outputQueued: true, now: t0 + .seconds(5) + .milliseconds(1)) == .tearDown)
        m.wrote(now: t0 + .seconds(4))
        #expect(m.deadlineFired(quiet: false, outputQueued: true, now: t0 + .seconds(9)) == .checkStreams)
        #expect(m.deadlineFired(quiet: false, outputQueued: false, now: t0 + .seconds(60)) == .checkStreams)
    }

    /// The connection's window at 0 with answers waiting past the write deadline ends the
    /// session; a window that opens, or nothing waiting, starts over. (A stream's own window
    /// is its machine's: HTTP2StreamStateMachineTests.)
    @Test func closedWindowsAreTimed() {
        var m = machine()
        #expect(m.connectionWindow(closed: true, answersWaiting: true, now: t0) == nil)
        #expect(m.connectionStalledSince == t0)
        #expect(m.connectionWindow(closed: true, answersWaiting: false, now: t0 + .seconds(3)) == nil)
        #expect(m.connectionStalledSince == nil)
        #expect(m.connectionWindow(closed: true, answersWaiting: true, now: t0 + .seconds(4)) == nil)
        #expect(m.connectionWindow(closed: true, answersWaiting: true, now: t0 + .seconds(9)) == nil)
        #expect(m.connectionWindow(closed: true, answersWaiting: true, now: t0 + .seconds(10)) == .enhanceYourCalm)
        #expect(m.connectionWindow(closed: false, answersWaiting: true, now: t0 + .seconds(11)) == nil)
        #expect(m.connectionStalledSince == nil)
    }

    /// Reading pauses once more than the output limit waits, resumes when it no longer does,
    /// and resumes whatever waits when the driver must read (a TLS write needs a read, or
    /// the connection lingers); each change is reported once.
    @Test func readingPausesPastTheOutputLimit() {
        var m = machine()
        #expect(m.outputQueued(1000) == nil)
        #expect(m.outputQueued(1001) == .pause)
        #expect(m.readingPaused)
        #expect(m.outputQueued(5000) == nil)
        #expect(m.outputQueued(1000) == .resume)
        #expect(!m.readingPaused)
        #expect(m.readingNeeded() == nil)
        #expect(m.outputQueued(2000) == .pause)
        #expect(m.readingNeeded() == .resume)
        #expect(m.readingNeeded() == nil)
        #expect(m.outputQueued(2000) == .pause)
    }
}
