import GatewayModels
import GatewaySupport

/// The current fault settings and the seeded generator that decides which requests fail.
/// Thread-safe; with a fixed seed, the n-th request drawn gets the same fate on every run.
final class FaultInjector: Sendable {
    /// What happens to one request.
    enum Fate: Equatable {
        case answer
        case error
        case drop
        /// Carried out, then the connection is reset without a reply.
        case lostAnswer
    }

    private struct State {
        var faults: DemoFaults
        var generator: Xorshift64Star
    }

    private let state: Locked<State>

    init(faults: DemoFaults, seed: UInt64) {
        state = Locked(State(faults: faults, generator: Xorshift64Star(seed: seed)))
    }

    var faults: DemoFaults {
        get { state.withLock { $0.faults } }
        set { state.withLock { $0.faults = newValue } }
    }

    /// Puts back `faults` and restarts the generator from `seed`.
    func reset(faults: DemoFaults, seed: UInt64) {
        state.withLock { $0 = State(faults: faults, generator: Xorshift64Star(seed: seed)) }
    }

    /// The settings now and, unless the origin is down, this request's fate. A draw is made
    /// only when a rate is set, so switching faults on does not shift earlier requests.
    func plan() -> (faults: DemoFaults, fate: Fate) {
        state.withLock { state in
            let faults = state.faults
            if faults.down { return (faults, .drop) }
            guard faults.errorRate > 0 || faults.dropRate > 0 || faults.lostAnswerRate > 0 else { return (faults, .answer) }
            let draw = state.generator.nextUnit()
            if draw < faults.dropRate { return (faults, .drop) }
            if draw < faults.dropRate + faults.errorRate { return (faults, .error) }
            if draw < faults.dropRate + faults.errorRate + faults.lostAnswerRate { return (faults, .lostAnswer) }
            return (faults, .answer)
        }
    }
}
