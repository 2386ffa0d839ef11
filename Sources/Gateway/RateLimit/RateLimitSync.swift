import GatewayModels
import HTTPInterface
import Observability
import GatewaySupport

/// Shares the per-client budgets across replicas through Redis without a Redis round trip
/// per request (Kong's `sync_rate` approach): each replica counts what it allowed, and every
/// ``interval`` one script adds each client's count to its theoretical arrival time in Redis
/// (on Redis' clock) and publishes the resulting debts on the replicas' channel; every
/// replica (this one too) takes the later of each debt and its own. A budget can so be
/// overrun by what the replicas allow in one interval before they hear of each other.
///
/// When Redis cannot be reached, the counts of that interval are dropped and every replica
/// goes on per process (`gateway_rate_limit_shared` 0) until a sync works again.
///
/// Runs on the loop that owns `redis`.
package final class RateLimitSync: Sendable {
    let limiter: RateLimiter
    let redis: any RedisCommanding
    /// `omg:<16 hex digits>:rl:`.
    let prefix: String
    let channel: String
    let metrics: GatewayMetrics
    static let interval: Duration = .milliseconds(200)
    /// The most clients one sync sends; more wait for the next.
    static let maxPerSync = 2000
    static let messagePrefix = "rl:"

    /// ARGV[1] the key prefix, ARGV[2] the channel, then per client its policy, key, count
    /// and interval in microseconds. Answers how many it took.
    static let script = """
        local t = redis.call('TIME')
        local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
        local out = {}
        for i = 3, #ARGV, 4 do
          local name = ARGV[1] .. ARGV[i] .. ':' .. ARGV[i + 1]
          local tat = tonumber(redis.call('GET', name) or '0')
          if tat < now then tat = now end
          tat = tat + tonumber(ARGV[i + 2]) * tonumber(ARGV[i + 3])
          redis.call('SET', name, string.format('%d', tat), 'PX', math.floor((tat - now) / 1000) + 1000)
          out[#out + 1] = ARGV[i] .. ' ' .. ARGV[i + 1] .. ' ' .. string.format('%d', tat - now)
        end
        redis.call('PUBLISH', ARGV[2], 'rl:' .. table.concat(out, ','))
        return #out
        """

    package init(limiter: RateLimiter, redis: any RedisCommanding, prefix: String, channel: String, metrics: GatewayMetrics) {
        self.limiter = limiter
        self.redis = redis
        self.prefix = prefix
        self.channel = channel
        self.metrics = metrics
    }

    /// Syncs every ``interval`` from now on, for as long as the loop runs.
    package func start() {
        metrics.rateLimitShared(true)
        redis.loop.schedule(after: Self.interval) { [self] in tick() }
    }

    private func tick() {
        var spent = limiter.takeSpent()
        if spent.count > Self.maxPerSync { spent.removeLast(spent.count - Self.maxPerSync) }
        guard !spent.isEmpty else {
            redis.loop.schedule(after: Self.interval) { [self] in tick() }
            return
        }
        var arguments: [[UInt8]] = [Array("EVAL".utf8), Array(Self.script.utf8), Array("0".utf8), Array(prefix.utf8), Array(channel.utf8)]
        arguments.reserveCapacity(arguments.count + spent.count * 4)
        for entry in spent {
            arguments.append(Array(String(entry.kind.rawValue).utf8))
            arguments.append(Array(Self.hex(entry.client).utf8))
            arguments.append(Array(String(entry.count).utf8))
            arguments.append(Array(String(entry.rule.interval / 1000).utf8))
        }
        redis.send(arguments) { [self] result in
            if case .success(.integer) = result {
                metrics.rateLimitShared(true)
            } else {
                metrics.rateLimitShared(false)
                metrics.redisFailure("rate_limit_sync")
            }
            redis.loop.schedule(after: Self.interval) { [self] in tick() }
        }
    }

    /// Applies a sync's message (`rl:<policy> <key> <debt µs>,…`); false when `payload` is
    /// not one. Any thread.
    package static func apply(_ payload: [UInt8], to limiter: RateLimiter) -> Bool {
        guard payload.starts(with: messagePrefix.utf8) else { return false }
        for entry in parse(payload) {
            limiter.apply(entry.kind, client: entry.client, debt: .microseconds(entry.debtMicroseconds))
        }
        return true
    }

    /// The entries of a sync message; malformed ones are skipped.
    static func parse(_ payload: [UInt8]) -> [(kind: RateLimitKind, client: RateLimiter.ClientKey, debtMicroseconds: Int64)] {
        let text = String(decoding: payload.dropFirst(messagePrefix.utf8.count), as: UTF8.self)
        return text.split(separator: ",").compactMap { entry in
            let fields = entry.split(separator: " ")
            guard fields.count == 3, let raw = Int(fields[0]), let kind = RateLimitKind(rawValue: raw), fields[1].utf8.count == 32,
                let high = UInt64(fields[1].prefix(16), radix: 16), let low = UInt64(fields[1].suffix(16), radix: 16),
                let debt = Int64(fields[2]), debt >= 0
            else { return nil }
            return (kind, RateLimiter.ClientKey(high: high, low: low), debt)
        }
    }

    /// A client key as 32 hex digits.
    static func hex(_ client: RateLimiter.ClientKey) -> String {
        HexIDs.hex16(client.high) + HexIDs.hex16(client.low)
    }
}
