import Dispatch
import Foundation
@testable import Gateway
import GatewayModels
@testable import HTTPInterface
import Logging
@testable import Routing
import GatewaySupport

/// A loop for handler tests: a serial queue, whose jobs run one at a time and on which
/// `inLoop` is true. No libevent, no sockets.
final class QueueLoop: LoopExecutor, @unchecked Sendable {
    let queue = DispatchQueue(label: "handler-test-loop")
    private let key = DispatchSpecificKey<Bool>()

    init() { queue.setSpecific(key: key, value: true) }

    var inLoop: Bool { DispatchQueue.getSpecific(key: key) == true }

    func post(_ job: @escaping @Sendable () -> Void) { queue.async(execute: job) }

    func execute(_ job: @escaping @Sendable () -> Void) {
        if inLoop { job() } else { post(job) }
    }

    func schedule(after delay: Duration, _ job: @escaping @Sendable () -> Void) {
        let (seconds, attoseconds) = delay.components
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)), execute: job)
    }
}

/// An origin for handler tests. It records every request and answers it with `answer`, on
/// its loop, a turn later (as a real exchange would); while `holding`, answers wait until
/// `release()`. Thread-safe.
final class FakeOrigin: OriginSending, @unchecked Sendable {
    typealias Answer = @Sendable (OriginRequest) -> Result<OriginResponse, OriginFailure>

    let queueLoop: QueueLoop
    var loop: any LoopExecutor { queueLoop }

    private struct State {
        var requests: [OriginRequest] = []
        var holding = false
        var held: [@Sendable () -> Void] = []
        var answer: Answer
    }

    private let state: Locked<State>

    init(loop: QueueLoop, answer: @escaping Answer) {
        queueLoop = loop
        state = Locked(State(answer: answer))
    }

    /// Every request sent so far, in order.
    var requests: [OriginRequest] { state.withLock { $0.requests } }
    /// The targets (path and query) of every request so far, in order.
    var targets: [String] { requests.map(\.target) }

    /// What later requests are answered with.
    func answer(with answer: @escaping Answer) { state.withLock { $0.answer = answer } }

    /// Holds answers until `release()`.
    func hold() { state.withLock { $0.holding = true } }

    /// Sends every held answer (on the loop) and stops holding.
    func release() {
        releaseHeld(holding: false)
    }

    /// Sends the answers held so far (on the loop); later ones are held while `holding`.
    func releaseHeld(holding: Bool = true) {
        let held = state.withLock { state in
            state.holding = holding
            defer { state.held = [] }
            return state.held
        }
        for job in held { queueLoop.post(job) }
    }

    func send(_ request: OriginRequest, to endpoint: OriginEndpoint, completion: @escaping (Result<OriginResponse, OriginFailure>) -> Void) {
        precondition(queueLoop.inLoop, "FakeOrigin.send off its loop")
        // The completion runs on the loop only (the caller's contract), so it may cross here.
        nonisolated(unsafe) let completion = completion
        let job: @Sendable () -> Void = { [self] in
            let answer = state.withLock { $0.answer }
            completion(answer(request))
        }
        let holding = state.withLock { state in
            state.requests.append(request)
            if state.holding { state.held.append(job) }
            return state.holding
        }
        if !holding { queueLoop.post(job) }
    }

    static func ok(_ body: [UInt8]) -> Result<OriginResponse, OriginFailure> {
        .success(OriginResponse(status: 200, headers: ["Content-Type": "application/json"], body: body))
    }

    static func status(_ status: Int) -> Result<OriginResponse, OriginFailure> {
        .success(OriginResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(#"{"error":true}"#.utf8)))
    }
}

/// Takes the one answer to a request.
final class CapturedResponse: ResponseSink, @unchecked Sendable {
    private let state = Locked<(response: GatewayResponse?, waiter: CheckedContinuation<GatewayResponse, Never>?)>((nil, nil))

    func deliver(_ response: GatewayResponse) {
        let waiter = state.withLock { state -> CheckedContinuation<GatewayResponse, Never>? in
            precondition(state.response == nil, "a second answer to one request")
            state.response = response
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: response)
    }

    /// The answer, once it came.
    var response: GatewayResponse {
        get async {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> GatewayResponse? in
                    if state.response == nil { state.waiter = continuation }
                    return state.response
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}

/// Runs a router's handlers on a `QueueLoop` in front of a `FakeOrigin`: the gateway's read
/// and write handlers without a server, a socket or a real origin.
struct HandlerHarness {
    let loop = QueueLoop()
    let origin: FakeOrigin
    let router: Router

    init(router: Router, answer: @escaping FakeOrigin.Answer) {
        self.router = router
        origin = FakeOrigin(loop: loop, answer: answer)
    }

    /// Starts `request` on the loop, as the transport would; its answer comes later.
    func start(_ request: GatewayRequest) -> CapturedResponse {
        let capture = CapturedResponse()
        let router = router
        let origin = origin
        loop.post {
            router.run(
                router.classify(request), request, logger: Logger.quiet("handler-test"),
                services: LoopServices(origin: origin, redis: nil, drain: DrainState()), responder: Responder(sink: capture, requestID: request.requestID))
        }
        return capture
    }

    /// `GET path?query` with `headers`, and its answer.
    func get(_ path: String, query: String? = nil, headers: HTTPHeaders = [:]) async -> GatewayResponse {
        await start(GatewayRequest(method: .get, path: path, query: query, headers: headers)).response
    }

    /// Waits until the loop has run everything posted so far, and what that posted, `turns`
    /// times over: requests handlers send at once have reached the origin. Work that went off
    /// the loop (decoding an answer) may still run; poll for what it leads to.
    func settle(turns: Int = 20) async {
        for _ in 0..<turns {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in loop.post { done.resume() } }
        }
    }

    /// A fixture of the origin samples (Tests/GatewayModelsTests/Fixtures).
    static func fixture(_ name: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("GatewayModelsTests/Fixtures/\(name)")
        return [UInt8](try Data(contentsOf: url))
    }
}
