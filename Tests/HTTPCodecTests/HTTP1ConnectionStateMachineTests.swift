import HTTPCodec
import Testing

/// The HTTP/1.1 connection state machine while it serves: keep-alive and pipelining,
/// back-pressure, deadlines and `Expect: 100-continue` (its endings: HTTP1ConnectionEndingTests).
@Suite struct HTTP1ConnectionStateMachineTests {
    // MARK: - Keep-alive and pipelining

    @Test func startReadsAndArmsTheIdleDeadlineOnce() {
        var machine = Machine(maxOutputBytes: bound)
        #expect(machine.start() == act(.resume, .arm(.idle)))
        #expect(machine.isIdle)
        #expect(machine.start() == .none)
    }

    @Test func keepAliveAnswersSeveralRequestsInTurn() {
        var machine = started()
        for _ in 0..<3 {
            #expect(machine.readable() == act(step: .receive))
            #expect(machine.received(.bytes(60)) == act(step: .decode))
            #expect(!machine.isIdle)
            #expect(machine.decoded(completeKeepAlive) == act(.keep, .cancel, .handle))
            // Answered on the spot (a stored answer).
            #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
            #expect(machine.answerWritten(.drained) == act())
            #expect(machine.requestHandled() == act(step: .decode))
            #expect(machine.decoded(.nothingBuffered) == act(.keep, .arm(.idle), .wait))
            #expect(machine.isIdle)
        }
    }

    @Test func anAnswerGivenLaterResumesReadingAndProcessing() {
        var machine = awaitingAnswer()
        #expect(!machine.isIdle)
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(machine.answerWritten(.drained) == act(.resume, .keep, .decode))
        #expect(machine.decoded(.nothingBuffered) == act(.keep, .arm(.idle), .wait))
        #expect(machine.isIdle)
    }

    @Test func aPipelinedRequestWaitsForTheAnswerBeforeIt() {
        // Two requests arrive in one read; the first goes to a handler.
        var machine = started()
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.bytes(120)) == act(step: .decode))
        #expect(machine.decoded(completeKeepAlive) == act(.keep, .cancel, .handle))
        #expect(machine.requestHandled() == act(.pause))
        // Nothing is decoded while the first is handled; a read event only pauses.
        #expect(machine.readable() == act())
        #expect(machine.decoded(completeKeepAlive) == .none)
        // Its answer goes out first, then the second request is decoded.
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(machine.answerWritten(.drained) == act(.resume, .keep, .decode))
        #expect(machine.decoded(completeKeepAlive) == act(step: .handle))
        #expect(machine.requestHandled() == act(.pause))
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(machine.answerWritten(.drained) == act(.resume, .keep, .decode))
        #expect(machine.decoded(.nothingBuffered) == act(.keep, .arm(.idle), .wait))
    }

    @Test func anAnswerGivenOnTheSpotDoesNotReenterProcessing() {
        var machine = started()
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.bytes(120)) == act(step: .decode))
        #expect(machine.decoded(completeKeepAlive) == act(.keep, .cancel, .handle))
        // The handler answers synchronously, inside the handle step: no decode step here.
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(machine.answerWritten(.drained) == act())
        #expect(machine.requestHandled() == act(step: .decode))
        // Nor does an answer whose output stays queued; the flush that drains it later does.
        #expect(machine.decoded(completeKeepAlive) == act(step: .handle))
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(machine.answerWritten(.pending(bytes: 10, sendingFile: false)) == act(.keep, .arm(.write), .wait))
        #expect(machine.requestHandled() == act(step: .decode))
        #expect(machine.decoded(.nothingBuffered) == act())
        #expect(!machine.isIdle)
        #expect(machine.outputFlushed(.drained) == act(.keep, .cancel, .decode))
        #expect(machine.decoded(.nothingBuffered) == act(.keep, .arm(.idle), .wait))
        #expect(machine.isIdle)
    }

    @Test func stepOutcomesOutsideTheirStepAreIgnored() {
        var machine = started()
        #expect(machine.decoded(completeKeepAlive) == .none)
        #expect(machine.requestHandled() == .none)
        #expect(machine.continueWritten(.drained) == .none)
        #expect(machine.answerWritten(.drained) == .none)
        #expect(machine.answerReady(dropsConnection: false) == .none)
        #expect(machine.isIdle)
        #expect(machine.readable() == act(step: .receive))
    }

    // MARK: - Back-pressure

    @Test func readingPausesOverTheOutputBoundAndResumesWhenDrained() {
        var machine = handling()
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(machine.answerWritten(.pending(bytes: bound + 1, sendingFile: false)) == act(.keep, .arm(.write), .wait))
        #expect(machine.requestHandled() == act(.pause))
        // Still over: the write deadline is re-armed, reading stays paused.
        #expect(machine.outputFlushed(.pending(bytes: bound + 1, sendingFile: false)) == act(.keep, .arm(.write), .wait))
        // Down to the bound (not over it): still waiting for the write event, nothing else.
        #expect(machine.outputFlushed(.pending(bytes: bound, sendingFile: false)) == act(.keep, .arm(.write), .wait))
        #expect(machine.outputFlushed(.drained) == act(.keep, .cancel, .decode))
        // The next request was buffered all along.
        #expect(machine.decoded(completeKeepAlive) == act(step: .handle))
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(machine.answerWritten(.drained) == act())
        #expect(machine.requestHandled() == act(step: .decode))
        #expect(machine.decoded(.nothingBuffered) == act(.resume, .arm(.idle), .wait))
    }

    @Test func outputAtTheBoundDoesNotPauseReading() {
        var machine = handling()
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(machine.answerWritten(.pending(bytes: bound, sendingFile: false)) == act(.keep, .arm(.write), .wait))
        #expect(machine.requestHandled() == act(step: .decode))
        // The write deadline stands: no idle deadline while output is queued.
        #expect(machine.decoded(.nothingBuffered) == act())
        #expect(!machine.isIdle)
        #expect(machine.readable() == act(step: .receive))
    }

    @Test func aFileBeingSentPausesReadingWhateverItsSize() {
        var machine = handling()
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(machine.answerWritten(.pending(bytes: 1, sendingFile: true)) == act(.keep, .arm(.write), .wait))
        #expect(machine.requestHandled() == act(.pause))
        #expect(machine.outputFlushed(.drained) == act(.keep, .cancel, .decode))
        #expect(machine.decoded(.nothingBuffered) == act(.resume, .arm(.idle), .wait))
    }

    @Test func aLaterAnswerOverTheBoundKeepsReadingPaused() {
        var machine = awaitingAnswer()
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        // Paused while handled; over the bound it stays paused and nothing is decoded.
        #expect(machine.answerWritten(.pending(bytes: bound * 2, sendingFile: false)) == act(.keep, .arm(.write), .wait))
        #expect(machine.outputFlushed(.drained) == act(.keep, .cancel, .decode))
        #expect(machine.decoded(.nothingBuffered) == act(.resume, .arm(.idle), .wait))
    }

    // MARK: - Deadlines

    @Test func theIdleDeadlineCloses() {
        var machine = started()
        #expect(machine.timerFired() == act(step: .close))
        #expect(machine.isClosed)
    }

    @Test func theHeadDeadlineRunsFromTheFirstByteAndIsNeverRestarted() {
        var machine = started()
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.bytes(5)) == act(step: .decode))
        #expect(machine.decoded(.needMore) == act(.keep, .startHead(arm: true), .wait))
        #expect(!machine.isIdle)
        for _ in 0..<2 {
            #expect(machine.readable() == act(step: .receive))
            #expect(machine.received(.bytes(5)) == act(step: .decode))
            // Re-armed with what is left: `arm(.head)`, never `startHead` again.
            #expect(machine.decoded(.needMore) == act(.keep, .arm(.head), .wait))
        }
        #expect(machine.timerFired() == act(step: .refuse(.headTimeout)))
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(close11)))
        #expect(machine.answerWritten(.drained) == act(.keep, .arm(.linger), .shutOutput))
    }

    @Test func aHeadStartedWhileOutputIsQueuedKeepsItsStart() {
        var machine = handling()
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(machine.answerWritten(.pending(bytes: 100, sendingFile: false)) == act(.keep, .arm(.write), .wait))
        #expect(machine.requestHandled() == act(step: .decode))
        // The next head began: its clock starts, the write deadline stands.
        #expect(machine.decoded(.needMore) == act(.keep, .startHead(arm: false), .wait))
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.bytes(5)) == act(step: .decode))
        #expect(machine.decoded(.needMore) == act())
        // Drained: the head deadline comes back with what is left of it.
        #expect(machine.outputFlushed(.drained) == act(.keep, .cancel, .decode))
        #expect(machine.decoded(.needMore) == act(.keep, .arm(.head), .wait))
        #expect(machine.timerFired() == act(step: .refuse(.headTimeout)))
    }

    @Test func theBodyDeadlineIsReArmedAsTheBodyArrives() {
        var machine = started()
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.bytes(80)) == act(step: .decode))
        #expect(
            machine.decoded(.head(expectsContinue: false, unsupportedExpectation: false, http10: false, bodyBytesBuffered: 3))
                == act(.keep, .arm(.body), .decode))
        #expect(machine.decoded(.needMore) == act(.keep, .arm(.body), .wait))
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.bytes(100)) == act(step: .decode))
        #expect(machine.decoded(.needMore) == act(.keep, .arm(.body), .wait))
        #expect(machine.timerFired() == act(step: .refuse(.bodyTimeout)))
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(close11)))
    }

    @Test func aHeadAndBodyInOneReadStartNoHeadClock() {
        var machine = started()
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.bytes(80)) == act(step: .decode))
        #expect(
            machine.decoded(.head(expectsContinue: false, unsupportedExpectation: false, http10: false, bodyBytesBuffered: 10))
                == act(.keep, .arm(.body), .decode))
        #expect(machine.decoded(completeKeepAlive) == act(.keep, .cancel, .handle))
    }

    @Test func theWriteDeadlineCloses() {
        var machine = handling()
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(machine.answerWritten(.pending(bytes: 10, sendingFile: false)) == act(.keep, .arm(.write), .wait))
        #expect(machine.requestHandled() == act(step: .decode))
        #expect(machine.decoded(.nothingBuffered) == act())
        #expect(machine.timerFired() == act(step: .close))
        #expect(machine.isClosed)
    }

    @Test func aHandledRequestRunsNoDeadline() {
        var machine = awaitingAnswer()
        // Earlier output drains while the handler works: its write deadline goes, none follows.
        #expect(machine.timerFired() == act())
        var queued = handling()
        #expect(queued.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(queued.answerWritten(.pending(bytes: 10, sendingFile: false)) == act(.keep, .arm(.write), .wait))
        #expect(queued.requestHandled() == act(step: .decode))
        #expect(queued.decoded(completeKeepAlive) == act(step: .handle))
        #expect(queued.requestHandled() == act(.pause))
        #expect(queued.outputFlushed(.drained) == act(.keep, .cancel, .wait))
        #expect(queued.timerFired() == act())
        #expect(!queued.isClosed)
    }

    @Test func theLingerDeadlineCloses() {
        var machine = lingering()
        #expect(machine.timerFired() == act(step: .close))
        #expect(machine.isClosed)
    }

    // MARK: - Expect: 100-continue

    @Test func continueIsSentForHTTP11WhenNoBodyArrived() {
        var machine = started()
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.bytes(80)) == act(step: .decode))
        #expect(
            machine.decoded(.head(expectsContinue: true, unsupportedExpectation: false, http10: false, bodyBytesBuffered: 0))
                == act(step: .sendContinue))
        #expect(machine.continueWritten(.drained) == act(.keep, .arm(.body), .decode))
        #expect(machine.decoded(.needMore) == act(.keep, .arm(.body), .wait))
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.bytes(10)) == act(step: .decode))
        #expect(machine.decoded(completeKeepAlive) == act(.keep, .cancel, .handle))
    }

    @Test func continueIsNotSentForHTTP10OrOnceBodyBytesArrived() {
        for (http10, buffered) in [(true, 0), (false, 1)] {
            var machine = started()
            #expect(machine.readable() == act(step: .receive))
            #expect(machine.received(.bytes(80)) == act(step: .decode))
            #expect(
                machine.decoded(.head(expectsContinue: true, unsupportedExpectation: false, http10: http10, bodyBytesBuffered: buffered))
                    == act(.keep, .arm(.body), .decode))
        }
    }

    @Test func continueQueuedBehindOutputKeepsTheWriteDeadline() {
        var machine = handling()
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(machine.answerWritten(.pending(bytes: 10, sendingFile: false)) == act(.keep, .arm(.write), .wait))
        #expect(machine.requestHandled() == act(step: .decode))
        #expect(
            machine.decoded(.head(expectsContinue: true, unsupportedExpectation: false, http10: false, bodyBytesBuffered: 0))
                == act(step: .sendContinue))
        #expect(machine.continueWritten(.pending(bytes: 35, sendingFile: false)) == act(.keep, .arm(.write), .decode))
        #expect(machine.decoded(.needMore) == act())
        #expect(machine.outputFlushed(.drained) == act(.keep, .cancel, .decode))
        #expect(machine.decoded(.needMore) == act(.keep, .arm(.body), .wait))
    }

    @Test func aFailedContinueCloses() {
        var machine = started()
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.bytes(80)) == act(step: .decode))
        #expect(
            machine.decoded(.head(expectsContinue: true, unsupportedExpectation: false, http10: false, bodyBytesBuffered: 0))
                == act(step: .sendContinue))
        #expect(machine.continueWritten(.failed) == act(step: .close))
        #expect(machine.isClosed)
    }

    @Test func anUnsupportedExpectationIsRefused() {
        var machine = started()
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.bytes(80)) == act(step: .decode))
        #expect(
            machine.decoded(.head(expectsContinue: false, unsupportedExpectation: true, http10: false, bodyBytesBuffered: 0))
                == act(.keep, .cancel, .refuse(.unsupportedExpectation)))
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(close11)))
        #expect(machine.answerWritten(.drained) == act(.keep, .arm(.linger), .shutOutput))
    }
}
