import HTTPInterface
import Logging
import Routing

/// `Idempotency-Key` records in the replicas' shared Redis: exactly one create reaches the
/// origin per key, whichever replica each retry lands on, and across restarts.
///
/// A key's record (``IdempotencyRecord``) lives at `<namespace>idem:<scope>`:
/// - claimed atomically by a script (`SET` only when absent) as *running*, with a lease
///   (``lease``) so a replica that dies mid-request does not hold the key for ever;
/// - then *finished* with the response, for 24 hours, by a script that writes only while the
///   running record is still this request's (a compare-and-set on its token);
/// - or deleted, by the same kind of script, when the request never reached the origin.
///
/// The claim and the finished record go out with ``RedisCommanding/sendDurably(_:completion:)``:
/// when the primary has replicas, each is followed by `WAIT` on the loop's connection kept
/// for such writes. A claim no replica
/// acknowledged in time is unsure (a failover could lose it, and a retry on the new primary
/// would create again), so it is released and the create is not sent (503); the client is
/// answered once its finished record was acknowledged (or the wait ended: the create was
/// made, and its answer is the truth).
///
/// A retry while the key runs asks again every ``pollInterval`` up to ``waitBound``, then
/// gets 409. When Redis cannot be reached (down, slow, the breaker open) a keyed create
/// fails closed: 503, nothing sent. A claim whose answer was lost may have been made; the key
/// is then held (409) until its lease ends, never sent twice.
///
/// Called on the request's loop; Redis commands go through that loop's connection.
final class SharedIdempotency: IdempotencyLedger {
    /// `<namespace>idem:`: the key prefix.
    let prefix: String
    let waitBound: Duration
    /// How long a running record holds its key without being finished.
    let lease: Duration
    static let retention: Duration = .seconds(24 * 3600)
    static let pollInterval: Duration = .milliseconds(50)

    init(namespace: String, waitBound: Duration, lease: Duration) {
        prefix = namespace + "idem:"
        self.waitBound = waitBound
        self.lease = lease
    }

    /// KEYS[1] the record; ARGV fingerprint, running record, lease in ms. Answers `claimed`,
    /// `running`, `mismatch`, or the finished record.
    static let claimScript = """
        local v = redis.call('GET', KEYS[1])
        if not v then
          redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
          return 'claimed'
        end
        if string.sub(v, 2, 65) ~= ARGV[1] then return 'mismatch' end
        if string.sub(v, 1, 1) == 'R' then return 'running' end
        return v
        """
    /// KEYS[1] the record; ARGV the running record expected, the new value (or empty to
    /// delete), time to live in ms. 1 when written, 0 when the record was no longer ours.
    static let replaceScript = """
        if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
        if ARGV[2] == '' then
          redis.call('DEL', KEYS[1])
        else
          redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
        end
        return 1
        """

    func claim(scope: String, fingerprint: String, context: RouteContext, completion: @escaping @Sendable (IdempotencyClaim) -> Void) {
        guard let redis = context.redis else { return completion(.unavailable) }
        let ticket = IdempotencyTicket(scope: scope, fingerprint: fingerprint, token: Self.token())
        attempt(ticket, redis: redis, until: .now + waitBound, logger: context.logger, completion: completion)
    }

    private func attempt(
        _ ticket: IdempotencyTicket, redis: any RedisCommanding, until deadline: ContinuousClock.Instant, logger: Logger,
        completion: @escaping @Sendable (IdempotencyClaim) -> Void
    ) {
        let running = IdempotencyRecord.running(fingerprint: ticket.fingerprint, token: ticket.token)
        let claim = Self.eval(Self.claimScript, key: prefix + ticket.scope, [Array(ticket.fingerprint.utf8), running, lease.redisMilliseconds])
        redis.sendDurably(claim) { [self] result, replicated in
            switch result.map(Self.answer) {
            case .success(.claimed) where !replicated:
                logger.warning("idempotency claim not acknowledged by a replica in time: released, nothing sent", metadata: ["scope": "\(ticket.scope)"])
                replace(ticket, with: [], ttl: .zero, redis: redis, until: .now + lease, what: "release", logger: logger)
                completion(.unavailable)
            case .success(.claimed): completion(.first(ticket))
            case .success(.mismatch): completion(.mismatch)
            case .success(.running):
                guard ContinuousClock.now + Self.pollInterval < deadline else { return completion(.inProgress) }
                redis.loop.schedule(after: Self.pollInterval) { [self] in
                    attempt(ticket, redis: redis, until: deadline, logger: logger, completion: completion)
                }
            case .success(.finished(let response)): completion(.replay(GatewayResponse(response)))
            case .success(.unreadable):
                logger.error("unreadable idempotency record in redis", metadata: ["scope": "\(ticket.scope)"])
                completion(.unavailable)
            case .failure(let failure):
                logger.warning("idempotency claim failed", metadata: ["reason": "\(failure)"])
                completion(.unavailable)
            }
        }
    }

    /// What ``claimScript`` answered.
    enum Answer: Equatable {
        /// The key was free and is now this request's.
        case claimed
        /// The key's record has another fingerprint: another request used it.
        case mismatch
        /// A request with the key is running.
        case running
        /// A request with the key finished with this response.
        case finished(IdempotencyRecord.StoredResponse)
        /// Anything else: a record this gateway did not write (treated as Redis unavailable:
        /// nothing is sent).
        case unreadable
    }

    static func answer(_ reply: RedisReply) -> Answer {
        switch reply.text {
        case "claimed": return .claimed
        case "mismatch": return .mismatch
        case "running": return .running
        default:
            guard let bytes = reply.bytes, case .finished(_, let response)? = IdempotencyRecord.parse(bytes) else { return .unreadable }
            return .finished(response)
        }
    }

    func finish(_ ticket: IdempotencyTicket, response: GatewayResponse, context: RouteContext, then: @escaping @Sendable () -> Void) {
        let record = IdempotencyRecord.finished(fingerprint: ticket.fingerprint, response: response.stored)
        replace(
            ticket, with: record, ttl: Self.retention, redis: context.redis, until: .now + lease, what: "finish", logger: context.logger,
            durably: true, then: then)
    }

    func release(_ ticket: IdempotencyTicket, response: GatewayResponse, context: RouteContext) {
        replace(ticket, with: [], ttl: .zero, redis: context.redis, until: .now + lease, what: "release", logger: context.logger)
    }

    /// Replaces the running record of `ticket` (compare-and-set on it), trying again every
    /// 250 ms while Redis cannot be reached, until the lease would have ended: a finished
    /// record that is not written would free the key for a second create. With `durably`,
    /// each attempt waits for the replicas (``RedisCommanding/sendDurably(_:completion:)``). `then` runs
    /// after the first attempt, whatever became of it.
    private func replace(
        _ ticket: IdempotencyTicket, with value: [UInt8], ttl: Duration, redis: (any RedisCommanding)?, until deadline: ContinuousClock.Instant,
        what: String, logger: Logger, durably: Bool = false, then: (@Sendable () -> Void)? = nil
    ) {
        guard let redis else { then?(); return }
        let running = IdempotencyRecord.running(fingerprint: ticket.fingerprint, token: ticket.token)
        let command = Self.eval(Self.replaceScript, key: prefix + ticket.scope, [running, value, ttl.redisMilliseconds])
        let sent: (@escaping (Result<RedisReply, RedisFailure>, Bool) -> Void) -> Void = { handle in
            if durably { redis.sendDurably(command, completion: handle) } else { redis.send(command) { handle($0, true) } }
        }
        sent { [self] result, replicated in
            defer { then?() }
            switch result {
            case .success(.integer(1)):
                if !replicated {
                    logger.warning("idempotency record not acknowledged by a replica in time", metadata: ["scope": "\(ticket.scope)", "step": "\(what)"])
                }
            case .success:
                logger.warning("idempotency record was no longer this request's", metadata: ["scope": "\(ticket.scope)", "step": "\(what)"])
            case .failure(let failure):
                guard ContinuousClock.now < deadline else {
                    logger.error("idempotency record not written", metadata: ["scope": "\(ticket.scope)", "step": "\(what)", "reason": "\(failure)"])
                    return
                }
                redis.loop.schedule(after: .milliseconds(250)) { [self] in
                    replace(ticket, with: value, ttl: ttl, redis: redis, until: deadline, what: what, logger: logger, durably: durably)
                }
            }
        }
    }

    static func eval(_ script: String, key: String, _ arguments: [[UInt8]]) -> [[UInt8]] {
        [Array("EVAL".utf8), Array(script.utf8), Array("1".utf8), Array(key.utf8)] + arguments
    }

    /// 128 random bits, hex.
    static func token() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let digits = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
    }
}
