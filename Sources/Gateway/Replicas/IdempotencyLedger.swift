import Dispatch
import HTTPInterface
import Routing

/// Where `Idempotency-Key` records live: in this process (``LocalIdempotency``), or in the
/// replicas' shared Redis (``SharedIdempotency``), so a retry that lands on another replica,
/// or comes after a restart, finds its key.
///
/// Every method is called on the loop that owns the request; completions may run on any
/// thread (a responder may be called from any thread).
protocol IdempotencyLedger: Sendable {
    /// Claims `scope` for a request with `fingerprint`. Waits while another request with the
    /// key runs, up to the ledger's bound.
    func claim(scope: String, fingerprint: String, context: RouteContext, completion: @escaping @Sendable (IdempotencyClaim) -> Void)
    /// Records the response of the request that claimed `ticket` (it reached the origin), then
    /// runs `then` (where the client is answered): at once in this process; with the shared
    /// ledger once Redis answered the first attempt (and, with replicas to wait for, they
    /// acknowledged it or the wait ended), or it failed. Later attempts go on behind it.
    func finish(_ ticket: IdempotencyTicket, response: GatewayResponse, context: RouteContext, then: @escaping @Sendable () -> Void)
    /// Forgets `ticket`'s key: its request never reached the origin, so a retry may run afresh.
    /// `response` goes to requests of this process waiting on it.
    func release(_ ticket: IdempotencyTicket, response: GatewayResponse, context: RouteContext)
}

/// The request that claimed a key, for ``IdempotencyLedger/finish(_:response:context:)``.
struct IdempotencyTicket: Sendable {
    let scope: String
    let fingerprint: String
    /// Names this claim among others of the same key (a claim whose lease ran out).
    let token: String
}

/// What claiming a key gave.
enum IdempotencyClaim: Sendable {
    /// The key is this request's: send it, then `finish` or `release`.
    case first(IdempotencyTicket)
    /// A request with the key finished: its response, to be replayed.
    case replay(GatewayResponse)
    /// The key was used with a different request (422).
    case mismatch
    /// A request with the key is still running past the wait bound (409, `Retry-After`).
    case inProgress
    /// The records cannot be reached (Redis down or slow), or the claim did not reach a
    /// replica in time (then it is released): a keyed create cannot be made safely (503,
    /// `Retry-After`).
    case unavailable

    /// The answers for the outcomes that send nothing.
    static let mismatchError = GatewayError(
        status: 422, type: GatewayError.typePrefix + "idempotency-key-reused", title: "Idempotency key reused",
        detail: "This Idempotency-Key was used with a different request in the last 24 hours.")
    static let inProgressError = GatewayError(
        status: 409, type: GatewayError.typePrefix + "idempotency-key-in-use", title: "Idempotency key in use",
        detail: "A request with this Idempotency-Key is still being processed; retry after a moment to get its answer.",
        headers: ["Retry-After": "1"])
    static let unavailableError = GatewayError(
        status: 503, type: GatewayError.typePrefix + "idempotency-unavailable", title: "Idempotency records unavailable",
        detail: "The store of Idempotency-Key records cannot be reached, so this create cannot be made safely; nothing was sent. Retry shortly with the same key.",
        headers: ["Retry-After": "2"])
}

extension GatewayResponse {
    /// The response as an idempotency record stores it.
    var stored: IdempotencyRecord.StoredResponse {
        IdempotencyRecord.StoredResponse(status: status, fields: headers.map { ($0.name, $0.value) }, body: body)
    }

    init(_ stored: IdempotencyRecord.StoredResponse) {
        var headers: HTTPHeaders = [:]
        for field in stored.fields { headers.add(field.name, field.value) }
        self.init(status: stored.status, headers: headers, body: stored.body)
    }
}
