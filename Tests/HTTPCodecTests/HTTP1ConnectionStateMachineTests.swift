import HTTPCodec
import Testing

private typealias Machine = HTTP1ConnectionStateMachine

/// An action, written short: `act(.pause, .arm(.write), .wait)`.
private func act(_ reading: Machine.ReadingChange = .keep, _ deadline: Machine.DeadlineChange = .keep, _ step: Machine.Step = .wait)
    -> Machine.Action
{
    Machine.Action(reading: reading, deadline: deadline, step: step)
}

/// An action with no reading or deadline change.
private func act(step: Machine.Step) -> Machine.Action {
    Machine.Action(reading: .keep, deadline: .keep, step: step)
}

private let bound = 64 * 1024
private let keepAlive11 = HTTP1ResponseFraming(closeAfter: false, http10: false)
private let close11 = HTTP1ResponseFraming(closeAfter: true, http10: false)
private let completeKeepAlive = Machine.DecodeFact.complete(keepAlive: true, http10: false)

/// A machine that started: reading, idle deadline armed.
private func started() -> Machine {
    var machine = Machine(maxOutputBytes: bound)
    #expect(machine.start() == act(.resume, .arm(.idle)))
    return machine
}

/// A started machine that read a whole request and is to handle it.
private func handling(_ fact: Machine.DecodeFact = completeKeepAlive) -> Machine {
    var machine = started()
    #expect(machine.readable() == act(step: .receive))
    #expect(machine.received(.bytes(40)) == act(step: .decode))
    #expect(machine.decoded(fact) == act(.keep, .cancel, .handle))
    return machine
}

/// A machine whose request's handler works on: reading paused, no deadline.
private func awaitingAnswer(_ fact: Machine.DecodeFact = completeKeepAlive) -> Machine {
    var machine = handling(fact)
    #expect(machine.requestHandled() == act(.pause))
    return machine
}

/// A machine that refused its stream, answered the problem and lingers.
private func lingering() -> Machine {
    var machine = started()
    #expect(machine.readable() == act(step: .receive))
    #expect(machine.received(.bytes(10)) == act(step: .decode))
    #expect(machine.decoded(.failure(.bareLineFeed)) == act(.keep, .cancel, .refuse(.malformed(.bareLineFeed))))
    #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(close11)))
    #expect(machine.answerWritten(.drained) == act(.keep, .arm(.linger), .shutOutput))
    return machine
}

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

    // MARK: - Refusals and lingering close

    @Test func aDecoderFailureIsAnsweredThenTheConnectionLingers() {
        var machine = lingering()
        #expect(!machine.isIdle)
        #expect(machine.readable() == act(step: .discard))
        #expect(machine.received(.bytes(200 * 1024)) == act())
        #expect(machine.received(.nothing) == act())
        #expect(machine.readable() == act(step: .discard))
        #expect(machine.received(.bytes(56 * 1024 - 1)) == act())
        // The 256 KiB budget is spent: close.
        #expect(machine.received(.bytes(1)) == act(step: .close))
        #expect(machine.isClosed)
    }

    @Test func lingeringEndsWithTheClientsEndOfStream() {
        var machine = lingering()
        #expect(machine.readable() == act(step: .discard))
        #expect(machine.received(.endOfStream) == act(step: .close))
    }

    @Test func aRefusalAnsweredLaterLingersAfterItsOutput() {
        var machine = started()
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.bytes(10)) == act(step: .decode))
        #expect(machine.decoded(.needMore) == act(.keep, .startHead(arm: true), .wait))
        #expect(machine.received(.bytes(10)) == act(step: .decode))
        #expect(machine.decoded(.failure(.headTooLarge)) == act(.keep, .cancel, .refuse(.malformed(.headTooLarge))))
        // The problem answer is not written yet: a read event only pauses reading.
        #expect(machine.readable() == act(.pause))
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(close11)))
        #expect(machine.answerWritten(.pending(bytes: 300, sendingFile: false)) == act(.keep, .arm(.write), .wait))
        #expect(machine.readable() == act())
        #expect(machine.outputFlushed(.drained) == act(.resume, .arm(.linger), .shutOutput))
        #expect(machine.readable() == act(step: .discard))
    }

    @Test func aFullBufferRefusesByPhase() {
        var head = started()
        #expect(head.readable() == act(step: .receive))
        #expect(head.received(.bufferFull) == act(.keep, .cancel, .refuse(.malformed(.headTooLarge))))

        var body = started()
        #expect(body.readable() == act(step: .receive))
        #expect(body.received(.bytes(80)) == act(step: .decode))
        #expect(
            body.decoded(.head(expectsContinue: false, unsupportedExpectation: false, http10: false, bodyBytesBuffered: 3))
                == act(.keep, .arm(.body), .decode))
        #expect(!head.isReadingBody)
        #expect(body.decoded(.needMore) == act(.keep, .arm(.body), .wait))
        #expect(body.isReadingBody)
        #expect(body.readable() == act(step: .receive))
        #expect(body.received(.bufferFull) == act(.keep, .cancel, .refuse(.malformed(.bodyTooLarge))))
    }

    @Test func aClientsConnectionCloseLingersAfterTheAnswer() {
        let closing = Machine.DecodeFact.complete(keepAlive: false, http10: false)
        // Answered on the spot.
        var machine = handling(closing)
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(close11)))
        #expect(machine.answerWritten(.drained) == act(.keep, .arm(.linger), .shutOutput))
        #expect(machine.requestHandled() == act())
        #expect(machine.readable() == act(step: .discard))
        // Answered later, with output left to send.
        var later = awaitingAnswer(closing)
        #expect(later.answerReady(dropsConnection: false) == act(step: .writeAnswer(close11)))
        #expect(later.answerWritten(.pending(bytes: 10, sendingFile: false)) == act(.keep, .arm(.write), .wait))
        #expect(later.outputFlushed(.pending(bytes: 5, sendingFile: false)) == act(.keep, .arm(.write), .wait))
        #expect(later.outputFlushed(.drained) == act(.resume, .arm(.linger), .shutOutput))
    }

    // MARK: - End of stream

    @Test func endOfStreamBetweenRequestsCloses() {
        var machine = started()
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.endOfStream) == act(.pause, .keep, .decode))
        #expect(machine.decoded(.nothingBuffered) == act(step: .close))
        #expect(machine.isClosed)
    }

    @Test func endOfStreamInsideARequestCloses() {
        var machine = started()
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.bytes(10)) == act(step: .decode))
        #expect(machine.decoded(.needMore) == act(.keep, .startHead(arm: true), .wait))
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.endOfStream) == act(.pause, .keep, .decode))
        #expect(machine.decoded(.needMore) == act(step: .close))
    }

    @Test func endOfStreamSendsQueuedOutputThenCloses() {
        var machine = handling()
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(machine.answerWritten(.pending(bytes: 10, sendingFile: false)) == act(.keep, .arm(.write), .wait))
        #expect(machine.requestHandled() == act(step: .decode))
        #expect(machine.decoded(.nothingBuffered) == act())
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.endOfStream) == act(.pause, .keep, .decode))
        #expect(machine.decoded(.nothingBuffered) == act())
        #expect(!machine.isIdle)
        // The client sends no more: no lingering, the socket closes once the output is out.
        #expect(machine.outputFlushed(.drained) == act(step: .shutOutputAndClose))
        #expect(machine.isClosed)
    }

    @Test func endOfStreamStillAnswersBufferedRequests() {
        // Two requests read; the first's answer is over the bound, so the second waits.
        var machine = handling()
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(machine.answerWritten(.pending(bytes: bound + 1, sendingFile: false)) == act(.keep, .arm(.write), .wait))
        #expect(machine.requestHandled() == act(.pause))
        // TLS wants the socket readable to write; the read then finds the end of stream.
        #expect(machine.writeNeedsReadable() == act(.resume))
        #expect(machine.outputFlushed(.pending(bytes: bound + 1, sendingFile: false)) == act(.keep, .arm(.write), .wait))
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.endOfStream) == act(.pause))
        #expect(machine.outputFlushed(.drained) == act(.keep, .cancel, .decode))
        // The buffered request is still answered (reading never resumes), then it closes.
        #expect(machine.decoded(completeKeepAlive) == act(step: .handle))
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(machine.answerWritten(.drained) == act())
        #expect(machine.requestHandled() == act(step: .decode))
        #expect(machine.decoded(.nothingBuffered) == act(step: .close))
    }

    @Test func endOfStreamBeforeAConnectionCloseAnswerSkipsLingering() {
        // A whole request was buffered when the end of stream came.
        var eof = started()
        #expect(eof.readable() == act(step: .receive))
        #expect(eof.received(.endOfStream) == act(.pause, .keep, .decode))
        #expect(eof.decoded(.complete(keepAlive: false, http10: false)) == act(.keep, .cancel, .handle))
        #expect(eof.answerReady(dropsConnection: false) == act(step: .writeAnswer(close11)))
        #expect(eof.answerWritten(.drained) == act(step: .shutOutputAndClose))
        #expect(eof.requestHandled() == .none)
    }

    // MARK: - Resets, drain, close

    @Test func aResetAnswerDropsTheConnection() {
        var machine = awaitingAnswer()
        #expect(machine.answerReady(dropsConnection: true) == act(step: .reset))
        #expect(machine.isClosed)
        // Given on the spot, inside the handle step.
        var onTheSpot = handling()
        #expect(onTheSpot.answerReady(dropsConnection: true) == act(step: .reset))
        #expect(onTheSpot.requestHandled() == .none)
    }

    @Test func drainClosesAnIdleConnection() {
        var machine = started()
        #expect(machine.drainBegan() == act(step: .close))
        #expect(machine.isClosed)
    }

    @Test func answersWhileDrainingCloseTheConnection() {
        var machine = awaitingAnswer()
        #expect(machine.drainBegan() == .none)
        #expect(machine.isDraining)
        #expect(machine.drainBegan() == .none)
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(close11)))
        #expect(machine.answerWritten(.drained) == act(.resume, .arm(.linger), .shutOutput))
    }

    @Test func drainLeavesAConnectionInsideARequest() {
        var machine = started()
        #expect(machine.readable() == act(step: .receive))
        #expect(machine.received(.bytes(10)) == act(step: .decode))
        #expect(machine.decoded(.needMore) == act(.keep, .startHead(arm: true), .wait))
        #expect(machine.drainBegan() == .none)
        #expect(machine.received(.bytes(10)) == act(step: .decode))
        #expect(machine.decoded(.complete(keepAlive: true, http10: true)) == act(.keep, .cancel, .handle))
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(HTTP1ResponseFraming(closeAfter: true, http10: true))))
    }

    @Test func http10KeptAliveSaysSo() {
        var machine = handling(.complete(keepAlive: true, http10: true))
        #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(HTTP1ResponseFraming(closeAfter: false, http10: true))))
        #expect(machine.answerWritten(.drained) == act())
        #expect(machine.requestHandled() == act(step: .decode))
    }

    @Test func writeFailuresClose() {
        var answer = handling()
        #expect(answer.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(answer.answerWritten(.failed) == act(step: .close))
        #expect(answer.requestHandled() == .none)

        var flush = handling()
        #expect(flush.answerReady(dropsConnection: false) == act(step: .writeAnswer(keepAlive11)))
        #expect(flush.answerWritten(.pending(bytes: 1, sendingFile: false)) == act(.keep, .arm(.write), .wait))
        #expect(flush.outputFlushed(.failed) == act(step: .close))
    }

    @Test func aWriteThatNeedsTheSocketReadableResumesReading() {
        var machine = awaitingAnswer()
        #expect(machine.writeNeedsReadable() == act(.resume))
        #expect(machine.writeNeedsReadable() == act())
        // The read event then finds the connection handling: reading pauses again.
        #expect(machine.readable() == act(.pause))
    }

    @Test func closedIsTerminal() {
        var machine = started()
        #expect(machine.close() == act(step: .close))
        #expect(machine.isClosed)
        #expect(!machine.isIdle)
        #expect(machine.close() == .none)
        #expect(machine.start() == .none)
        #expect(machine.readable() == .none)
        for outcome in [Machine.ReadOutcome.bytes(1), .endOfStream, .nothing, .bufferFull] {
            #expect(machine.received(outcome) == .none)
        }
        for fact in [Machine.DecodeFact.nothingBuffered, .needMore, completeKeepAlive, .failure(.bareLineFeed)] {
            #expect(machine.decoded(fact) == .none)
        }
        for outcome in [Machine.WriteOutcome.drained, .pending(bytes: 1, sendingFile: false), .failed] {
            #expect(machine.continueWritten(outcome) == .none)
            #expect(machine.answerWritten(outcome) == .none)
            #expect(machine.outputFlushed(outcome) == .none)
        }
        #expect(machine.requestHandled() == .none)
        #expect(machine.answerReady(dropsConnection: false) == .none)
        #expect(machine.answerReady(dropsConnection: true) == .none)
        #expect(machine.writeNeedsReadable() == .none)
        #expect(machine.timerFired() == .none)
        #expect(machine.drainBegan() == .none)
        #expect(machine.isClosed)
    }

    @Test func anAnswerAfterCloseIsDropped() {
        var machine = awaitingAnswer()
        #expect(machine.close() == act(step: .close))
        #expect(machine.answerReady(dropsConnection: false) == .none)
    }

    // MARK: - Values

    @Test func theMachineAndItsActionsArePlainValues() {
        // No references anywhere: copying them retains nothing and nothing is allocated.
        #expect(_isPOD(Machine.self))
        #expect(_isPOD(Machine.Action.self))
        #expect(_isPOD(Machine.DecodeFact.self))
        #expect(MemoryLayout<Machine.Action>.size <= 16)
    }

    @Test func decodeFactsFromTheDecoder() {
        func facts(_ text: String) -> [Machine.DecodeFact] {
            var decoder = RequestDecoder()
            var bytes = Array(text.utf8)
            var out: [Machine.DecodeFact] = []
            while out.count < 4 {
                let fact = bytes.withUnsafeMutableBytes { Machine.DecodeFact(decoder.decode($0), bufferedBytes: $0.count) }
                out.append(fact)
                guard case .head = fact else { break }
            }
            return out
        }
        #expect(facts("GET / HTTP/1.1\r\nHo") == [.needMore])
        #expect(facts("GET / HTTP/1.0\r\n\r\n") == [.complete(keepAlive: false, http10: true)])
        #expect(facts("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n") == [.complete(keepAlive: true, http10: true)])
        #expect(facts("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n") == [.complete(keepAlive: false, http10: false)])
        #expect(
            facts("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n")
                == [.head(expectsContinue: true, unsupportedExpectation: false, http10: false, bodyBytesBuffered: 0), .needMore])
        #expect(
            facts("\r\nPOST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nab")
                == [.head(expectsContinue: true, unsupportedExpectation: false, http10: false, bodyBytesBuffered: 2), .needMore])
        #expect(
            facts("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nExpect: later\r\n\r\nab")
                == [.head(expectsContinue: false, unsupportedExpectation: true, http10: false, bodyBytesBuffered: 2),
                    completeKeepAlive])
        #expect(facts("GET / HTTP/1.1\nHost: a\r\n\r\n") == [.failure(.bareLineFeed)])
    }
}
