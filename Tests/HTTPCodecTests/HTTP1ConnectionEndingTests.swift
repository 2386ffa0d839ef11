import HTTPCodec
import Testing

/// How the HTTP/1.1 connection state machine ends a connection: refusals and lingering close,
/// the client's end of stream, resets, drain and close; and that it is made of plain values.
@Suite struct HTTP1ConnectionEndingTests {
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
