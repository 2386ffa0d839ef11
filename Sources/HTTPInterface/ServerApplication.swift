import Tracing
import GatewaySupport

/// What a server's protocol layer (HTTP/1.1 today, HTTP/2 next) hands every request to. The
/// transport knows the application only through this protocol; the application knows the
/// transport only through `LoopServices`, `Responder` and the protocols they carry.
///
/// For each complete request, on the loop thread that read it, the transport calls
/// `classify` once, then, for a `GET` or `HEAD` without a body, `answerStored`; when that
/// declines (or was not asked), it copies the request out and calls `handle`. It writes what
/// the application answers, adds `X-Request-ID`, the `RateLimit` fields of
/// `RequestRouting.rateLimit`, `Date`, `Content-Length` and `Connection`, and records
/// metrics and the access line with `RequestRouting.label`.
public protocol ServerApplication: Sendable {
    /// Decides, from the request's bytes alone, which route takes it and what it spends (a
    /// rate-limit budget is spent here, once, whichever way the request is then answered).
    /// On the loop thread; must not block; allocates nothing for a known client's request
    /// whose path needs no decoding.
    func classify(_ request: RequestBytes, peer: IPAddress) -> RequestRouting

    /// Answers from what is already stored (health, a fresh cache entry) into `answer`, or
    /// returns false having written nothing but, perhaps, `answer.declined` (which the
    /// transport then passes to `handle` as `routing.storedProbe`). On the loop thread; must
    /// not block, allocate on an answer, or keep any of the request's bytes.
    func answerStored(_ request: RequestBytes, routing: RequestRouting, into answer: inout StoredAnswer) -> Bool

    /// Answers `request` through `responder`, exactly once, now or later, from any thread.
    /// Called on the loop thread that owns the request; `services` are that loop's.
    func handle(_ request: GatewayRequest, routing: RequestRouting, services: LoopServices, responder: Responder)

    /// The answer to a `TRACE` that carried a body, which the transport refuses before
    /// reading the body: what the same request would get without one (405 with `Allow` on a
    /// known path, 404 elsewhere).
    func refusal(forTracePath path: String) -> GatewayError
}

/// One request's classification: made by `ServerApplication.classify`, carried unchanged by
/// the transport to `answerStored` and `handle`. The transport reads `label` and
/// `rateLimit`; `route`, `outcome` and `parameter` are the application's own.
public struct RequestRouting: Sendable {
    /// The route's pattern (`/v1/products/{id}`) or `unmatched`: the metric label and the
    /// access line's route. Never the raw path, so clients cannot multiply label values.
    public var label: String
    /// The budget the request spent and the fields every answer to it carries; nil when it
    /// spends none. When `allowed` is false the application answers 429.
    public var rateLimit: RateLimitFields?
    /// The application's index of the route, or of a route on the same path.
    public var route: Int
    /// The application's code for how the request matched (found, 405, 404, …).
    public var outcome: Int
    /// Where the path parameter lies in the raw path's bytes (empty when none).
    public var parameter: Range<Int>
    /// What the stored answer found before it declined (`StoredAnswer.declined`), set by the
    /// transport for `handle`.
    public var storedProbe: (any Sendable)?
    /// What authentication decided (the transport logs a verified subject as `user`).
    public var authentication: RequestAuthentication = .anonymous

    /// The verified subject, if any.
    public var subject: String? {
        if case .verified(let identity) = authentication { return identity.subject }
        return nil
    }

    public init(label: String, rateLimit: RateLimitFields? = nil, route: Int, outcome: Int, parameter: Range<Int> = 0..<0) {
        self.label = label
        self.rateLimit = rateLimit
        self.route = route
        self.outcome = outcome
        self.parameter = parameter
    }
}

/// What one loop offers the requests it runs: its origin client and its Redis connection
/// (each used only on that loop) and the server's shutdown state.
public struct LoopServices: Sendable {
    /// Nil when the server has no origin.
    public let origin: (any OriginSending)?
    /// Nil without a shared Redis.
    public let redis: (any RedisCommanding)?
    public let drain: DrainState
    /// Where a recorded request's INTERNAL spans go (an image render it waited on); nil
    /// without tracing.
    public let tracer: Tracer?

    public init(origin: (any OriginSending)?, redis: (any RedisCommanding)?, drain: DrainState, tracer: Tracer? = nil) {
        self.origin = origin
        self.redis = redis
        self.drain = drain
        self.tracer = tracer
    }
}
