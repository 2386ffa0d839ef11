import GatewaySupport

/// The body of `GET /readyz`.
///
/// Ready (200, `application/json`): `{"status":"ready","origin":"up","checkedAt":"…"}`;
/// `origin` is `up`, `down`, or `unknown` (with `checkedAt` null) before the first probe ends;
/// with `--redis-url`, `"redis":"up"|"down"` follows (the status stays 200: reads fail open),
/// and with Redis Sentinel `"redisPrimary":"host:port"` and, after a failover,
/// `"redisLastFailover":{"at":"…","durationMs":…}`;
/// with `--auth-issuer`, `"authKeys":"fresh"|"stale"|"missing"`; then the origin's breaker,
/// `"originBreaker":"closed"|"open"|"half-open"`.
/// Draining (503, `application/problem+json`): RFC 9457 reserves `status` for the HTTP status,
/// so the same facts are extension members: `{"type","title","status":503,"detail",
/// "requestId","readiness":"draining","origin","checkedAt"}`.
public struct ReadinessStatus: Sendable, Hashable, ContractJSONEncodable {
    public enum Origin: String, Sendable {
        case up, down
        /// The first probe has not finished yet.
        case unknown
    }

    /// True once the process has begun to drain after SIGTERM or SIGINT.
    public var draining: Bool
    /// What the last probe of the origin found; nil (written as `unknown`) before the first
    /// probe has finished.
    public var origin: Origin?
    /// RFC 3339 UTC time of that probe; nil before the first.
    public var checkedAt: String?
    /// With `--redis-url`: whether this process reaches the replicas' Redis now (`up`), or
    /// not (`down`: no connection, or its breaker open). nil, and left out, without Redis.
    public var redis: Origin?
    /// With `redis-sentinel://`: the primary the sentinels named (`host:port`); nil, and
    /// left out, without Sentinel or before a sentinel has answered.
    public var redisPrimary: String?
    /// With `redis-sentinel://`: the last failover this process followed; nil, and left out,
    /// before the first.
    public var redisLastFailover: Failover?
    /// With `--auth-issuer`: the identity provider's key set, `fresh` (the last fetch
    /// worked), `stale` (it failed; the last good set verifies) or `missing` (never loaded:
    /// requests that need a token get 503). nil, and left out, without authentication.
    public var authKeys: String?
    /// The origin's circuit breaker: `closed` (requests go), `open` (none goes for a while;
    /// stored pages serve, the rest is answered 503 at once) or `half-open` (one probe at a
    /// time). nil, and left out, where there is none.
    public var originBreaker: String?

    public init(
        draining: Bool, origin: Origin?, checkedAt: String?, redis: Origin? = nil, authKeys: String? = nil, originBreaker: String? = nil
    ) {
        self.originBreaker = originBreaker
        self.draining = draining
        self.origin = origin
        self.checkedAt = checkedAt
        self.redis = redis
        self.authKeys = authKeys
    }

    /// A failover of the Redis primary, as this process saw it.
    public struct Failover: Sendable, Hashable {
        /// RFC 3339 UTC: when this process learned of the new primary.
        public var at: String
        /// How long it had no primary: from its first failed connection to the old one (or
        /// the news, when that came first) until its first connection to the new one was
        /// ready.
        public var durationMs: Int64

        public init(at: String, durationMs: Int64) {
            self.at = at
            self.durationMs = durationMs
        }
    }

    /// `ready` or `draining`.
    public var readiness: String { draining ? "draining" : "ready" }

    /// The 200 body.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("status"); writer.string(readiness)
        writeFacts(to: &writer)
        writer.endObject()
    }

    /// The 503 problem+json body.
    public func problemJSON(requestId: String) -> [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("type"); writer.string("about:blank")
        writer.key("title"); writer.string("Service Unavailable")
        writer.key("status"); writer.integer(503)
        writer.key("detail"); writer.string("The gateway is shutting down and takes no new work; retry on another replica.")
        writer.key("requestId"); writer.string(requestId)
        writer.key("readiness"); writer.string(readiness)
        writeFacts(to: &writer)
        writer.endObject()
        return writer.bytes
    }

    private func writeFacts(to writer: inout JSONWriter) {
        writer.key("origin"); writer.string((origin ?? .unknown).rawValue)
        writer.key("checkedAt"); writer.string(checkedAt)
        if let redis {
            writer.key("redis"); writer.string(redis.rawValue)
        }
        if let redisPrimary {
            writer.key("redisPrimary"); writer.string(redisPrimary)
        }
        if let redisLastFailover {
            writer.key("redisLastFailover")
            writer.beginObject()
            writer.key("at"); writer.string(redisLastFailover.at)
            writer.key("durationMs"); writer.integer(redisLastFailover.durationMs)
            writer.endObject()
        }
        if let authKeys {
            writer.key("authKeys"); writer.string(authKeys)
        }
        if let originBreaker {
            writer.key("originBreaker"); writer.string(originBreaker)
        }
    }
}
