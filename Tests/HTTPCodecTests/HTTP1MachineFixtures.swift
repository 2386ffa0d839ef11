import HTTPCodec
import Testing

// The machines and actions the HTTP/1.1 connection state machine tests start from and expect
// (HTTP1ConnectionStateMachineTests, HTTP1ConnectionEndingTests).

typealias Machine = HTTP1ConnectionStateMachine

/// An action, written short: `act(.pause, .arm(.write), .wait)`.
func act(_ reading: Machine.ReadingChange = .keep, _ deadline: Machine.DeadlineChange = .keep, _ step: Machine.Step = .wait)
    -> Machine.Action
{
    Machine.Action(reading: reading, deadline: deadline, step: step)
}

/// An action with no reading or deadline change.
func act(step: Machine.Step) -> Machine.Action {
    Machine.Action(reading: .keep, deadline: .keep, step: step)
}

let bound = 64 * 1024
let keepAlive11 = HTTP1ResponseFraming(closeAfter: false, http10: false)
let close11 = HTTP1ResponseFraming(closeAfter: true, http10: false)
let completeKeepAlive = Machine.DecodeFact.complete(keepAlive: true, http10: false)

/// A machine that started: reading, idle deadline armed.
func started() -> Machine {
    var machine = Machine(maxOutputBytes: bound)
    #expect(machine.start() == act(.resume, .arm(.idle)))
    return machine
}

/// A started machine that read a whole request and is to handle it.
func handling(_ fact: Machine.DecodeFact = completeKeepAlive) -> Machine {
    var machine = started()
    #expect(machine.readable() == act(step: .receive))
    #expect(machine.received(.bytes(40)) == act(step: .decode))
    #expect(machine.decoded(fact) == act(.keep, .cancel, .handle))
    return machine
}

/// A machine whose request's handler works on: reading paused, no deadline.
func awaitingAnswer(_ fact: Machine.DecodeFact = completeKeepAlive) -> Machine {
    var machine = handling(fact)
    #expect(machine.requestHandled() == act(.pause))
    return machine
}

/// A machine that refused its stream, answered the problem and lingers.
func lingering() -> Machine {
    var machine = started()
    #expect(machine.readable() == act(step: .receive))
    #expect(machine.received(.bytes(10)) == act(step: .decode))
    #expect(machine.decoded(.failure(.bareLineFeed)) == act(.keep, .cancel, .refuse(.malformed(.bareLineFeed))))
    #expect(machine.answerReady(dropsConnection: false) == act(step: .writeAnswer(close11)))
    #expect(machine.answerWritten(.drained) == act(.keep, .arm(.linger), .shutOutput))
    return machine
}
