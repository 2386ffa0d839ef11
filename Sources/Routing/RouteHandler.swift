import HTTPInterface
import Tracing
import Logging

/// What a handler gets besides the request.
public struct RouteContext: Sendable {
    /// Path parameters by name, percent-decoded (`{id}` in `/v1/products/{id}`).
    public var parameters: [String: String]
    public var requestID: String
    /// The request's trace id (W3C Trace Context), in its log lines.
    public var traceID: String?
    /// The origin client of the loop running the handler; nil without an origin. Use it
    /// only on that loop (a `deferred` handler is there).
    public let origin: (any OriginSending)?
    /// The Redis connection of the loop running the handler; nil without `--redis-url`.
    /// Use it only on that loop. With the request recorded (`trace`), each command is a
    /// CLIENT span of it (``TracedRedis``).
    public let redis: (any RedisCommanding)?
    /// Where the spans of work done for the request go (INTERNAL spans of what it waits on,
    /// the traces of background work it causes), when it is recorded: nil without tracing or
    /// when not sampled.
    public let trace: TraceScope?
    /// What the route's stored answer found before it declined (its `StoredAnswer.declined`),
    /// so the handler need not parse and look up again; nil when it did not run.
    public var storedProbe: (any Sendable)?
    /// The server's shutdown state; nil outside a server.
    private let drain: DrainState?
    private let baseLogger: Logger

    public init(
        parameters: [String: String] = [:], requestID: String, logger: Logger, origin: (any OriginSending)? = nil, redis: (any RedisCommanding)? = nil,
        drain: DrainState? = nil, traceID: String? = nil, storedProbe: (any Sendable)? = nil, trace: TraceScope? = nil
    ) {
        self.trace = trace
        self.storedProbe = storedProbe
        self.parameters = parameters
        self.requestID = requestID
        self.traceID = traceID
        self.baseLogger = logger
        self.origin = origin
        self.redis = TracedRedis.wrap(redis, scope: trace)
        self.drain = drain
    }

    /// This context for work done in another trace (background work the request caused):
    /// the same loop's origin and Redis, spans going to `trace`.
    public func with(trace: TraceScope?) -> RouteContext {
        RouteContext(
            parameters: parameters, requestID: requestID, logger: baseLogger, origin: origin, redis: redis,
            drain: drain, traceID: trace?.trace.traceID ?? traceID, storedProbe: storedProbe, trace: trace)
    }

    /// True once the server drains (after SIGTERM or SIGINT), read when asked: a handler
    /// answering late sees the state at that time.
    public var draining: Bool { drain?.isDraining ?? false }

    /// The server's logger with this request's id as `request_id` metadata. Built on use, so
    /// requests that log nothing pay nothing.
    public var logger: Logger {
        var logger = baseLogger
        logger[metadataKey: "request_id"] = .string(requestID)
        if let traceID { logger[metadataKey: "trace_id"] = .string(traceID) }
        return logger
    }
}

/// How a route produces its response, chosen by where the work has to happen.
public enum RouteHandler: Sendable {
    /// Runs on the loop thread and answers at once: for answers already at hand (health,
    /// cache hits). Must not block, must not do heavy CPU work. A thrown error is answered
    /// as problem+json.
    case immediate(@Sendable (GatewayRequest, RouteContext) throws -> GatewayResponse)
    /// Runs in a Swift task off the loop; the response hops back to the loop that owns the
    /// request. For CPU-heavy work (large transforms) and anything that awaits.
    case async(@Sendable (GatewayRequest, RouteContext) async throws -> GatewayResponse)
    /// Runs on the loop thread and answers later through the responder, exactly once: for
    /// work started on the loop itself (origin requests on the loop's connection pool).
    case deferred(@Sendable (GatewayRequest, RouteContext, Responder) -> Void)

    /// Runs the handler for `request` and answers through `responder` exactly once.
    public func run(_ request: GatewayRequest, context: RouteContext, responder: Responder) {
        switch self {
        case .immediate(let handler):
            do {
                responder.send(try handler(request, context))
            } catch {
                Self.logUnexpected(error, context: context)
                responder.fail(error)
            }
        case .async(let handler):
            Task {
                do {
                    responder.send(try await handler(request, context))
                } catch {
                    Self.logUnexpected(error, context: context)
                    responder.fail(error)
                }
            }
        case .deferred(let handler):
            handler(request, context, responder)
        }
    }

    private static func logUnexpected(_ error: any Error, context: RouteContext) {
        guard !(error is GatewayError) else { return }
        context.logger.error("handler failed", metadata: ["error": "\(String(reflecting: error))"], source: "Gateway")
    }
}
