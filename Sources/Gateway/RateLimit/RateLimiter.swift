import Crypto
import GatewayModels
import HTTPCodec
import HTTPInterface
import Routing
import GatewaySupport

/// The per-client budgets of one process: for each named policy, each client's theoretical
/// arrival time (``CellRate``) in a table split into shards, each behind its own lock.
///
/// Thread-safe; every loop checks requests here. A check of a known client allocates
/// nothing. Tables are bounded: clients whose budget is full again are forgotten when a
/// table grows, and past ``RateLimitConfiguration/maxClients`` new clients share one budget
/// until room is made.
package final class RateLimiter: RequestAdmission {
    /// Who a budget belongs to: an IPv4 address, an IPv6 /64, or the digest of a key header or
    /// of a verified token's subject.
    struct ClientKey: Hashable, Sendable {
        var high: UInt64
        var low: UInt64
        /// Every client that finds its table full.
        static let overflow = ClientKey(high: ~0, low: ~0)
    }

    private struct Shard: Sendable {
        var arrivals: [ClientKey: Int64] = [:]
        /// Requests allowed since the last sync with the other replicas (only when shared);
        /// emptied keeping its capacity, so steady clients cost no allocation.
        var spent: [ClientKey: Int] = [:]
        /// The size at which rested clients are next dropped.
        var sweepAt = 1024
        /// No sweep before this time (nanoseconds of ``nanoseconds(_:)``): a full table of
        /// busy clients is not scanned again for every newcomer.
        var nextSweep: Int64 = 0
    }

    private final class Table: Sendable {
        let shards: [Locked<Shard>]
        let maxPerShard: Int

        init(maxClients: Int) {
            shards = (0..<RateLimiter.shardCount).map { _ in Locked(Shard()) }
            maxPerShard = max(1, maxClients / RateLimiter.shardCount)
        }
    }

    static let shardCount = 8
    /// At most one sweep of a shard per second.
    static let sweepPause: Int64 = 1_000_000_000
    private let policies: [RateLimitPolicy?]
    private let tables: [Table?]
    let trusted: AddressRanges
    /// `--rate-limit-key-header`, lower-cased.
    private let keyHeader: [UInt8]?
    /// `--rate-limit-key subject`.
    private let keyBySubject: Bool
    private let start = ContinuousClock.now
    /// Whether allowed requests are counted for ``takeSpent()`` (with `--redis-url`).
    package let shared: Bool

    package init(configuration: RateLimitConfiguration, shared: Bool = false) {
        self.shared = shared
        let rules = [configuration.reads, configuration.writes, configuration.images]
        policies = RateLimitKind.allCases.map { kind in rules[kind.rawValue].map { RateLimitPolicy(kind: kind, rule: $0) } }
        tables = rules.map { $0 == nil ? nil : Table(maxClients: configuration.maxClients) }
        trusted = configuration.trustedProxies
        keyHeader = configuration.keyHeader.map { Array($0.lowercased().utf8) }
        keyBySubject = configuration.keyBySubject
    }

    /// The policy of `kind`, when its budget is on.
    func policy(_ kind: RateLimitKind) -> RateLimitPolicy? {
        policies[kind.rawValue]
    }

    /// Spends one request of `policy` for `client` now.
    func check(_ policy: RateLimitPolicy, client: ClientKey) -> RateLimitFields {
        policy.fields(check(policy.kind, rule: policy.rule, client: client, now: nanoseconds(.now)))
    }

    func check(_ kind: RateLimitKind, rule: RateRule, client: ClientKey, now: Int64) -> CellRate.Decision {
        guard let table = tables[kind.rawValue] else {
            return CellRate.Decision(allowed: true, remaining: rule.capacity, resetSeconds: 0, retryAfterSeconds: 0, arrival: 0)
        }
        let shard = table.shards[shardIndex(client)]
        return shard.withLock { shard in
            var key = client
            if shard.arrivals[key] == nil && shard.arrivals.count >= shard.sweepAt {
                if now >= shard.nextSweep {
                    shard.arrivals = shard.arrivals.filter { !CellRate.isRested(arrival: $0.value, now: now) }
                    shard.sweepAt = min(table.maxPerShard, max(1024, shard.arrivals.count * 2))
                    shard.nextSweep = now + Self.sweepPause
                }
                if shard.arrivals.count >= table.maxPerShard { key = .overflow }
            }
            let decision = CellRate.decide(arrival: shard.arrivals[key] ?? 0, now: now, rule: rule)
            if decision.allowed {
                shard.arrivals[key] = decision.arrival
                if shared { shard.spent[key, default: 0] += 1 }
            }
            return decision
        }
    }

    /// What clients spent since the last call, by policy: for the sync with the other
    /// replicas. Any thread.
    func takeSpent() -> [(kind: RateLimitKind, rule: RateRule, client: ClientKey, count: Int)] {
        var taken: [(RateLimitKind, RateRule, ClientKey, Int)] = []
        for kind in RateLimitKind.allCases {
            guard let table = tables[kind.rawValue], let rule = policies[kind.rawValue]?.rule else { continue }
            for shard in table.shards {
                shard.withLock { shard in
                    for (client, count) in shard.spent where client != .overflow { taken.append((kind, rule, client, count)) }
                    shard.spent.removeAll(keepingCapacity: true)
                }
            }
        }
        return taken
    }

    /// Another replica (or the sync itself) says `client` owes `debt` under `kind`: its
    /// budget is full again only `debt` from now. Takes the later of that and what this
    /// process knows. Any thread.
    func apply(_ kind: RateLimitKind, client: ClientKey, debt: Duration) {
        guard let table = tables[kind.rawValue] else { return }
        let now = nanoseconds(.now)
        let arrival = now + debt.nanoseconds
        table.shards[shardIndex(client)].withLock { shard in
            guard shard.arrivals[client] != nil || shard.arrivals.count < table.maxPerShard else { return }
            shard.arrivals[client] = max(shard.arrivals[client] ?? 0, arrival)
        }
    }

    private func shardIndex(_ client: ClientKey) -> Int {
        Int(truncatingIfNeeded: (client.high ^ client.low ^ (client.low >> 29)) % UInt64(Self.shardCount))
    }

    /// Clients remembered under `kind` now (tests, `/admin/cache`).
    func clientCount(_ kind: RateLimitKind) -> Int {
        tables[kind.rawValue]?.shards.reduce(0) { total, shard in total + shard.withLock { $0.arrivals.count } } ?? 0
    }

    /// Nanoseconds since this limiter began, on the monotonic clock.
    func nanoseconds(_ instant: ContinuousClock.Instant) -> Int64 {
        (instant - start).nanoseconds
    }

    /// The client of a request from `peer` whose head is `head` over `bytes`: a trusted
    /// proxy's key header when configured and sent, else the address ``ForwardedFor`` finds
    /// (IPv6 by its /64). Allocates nothing but the digest of a key header.
    func client(peer: IPAddress, head: RequestHead, bytes: UnsafeRawBufferPointer) -> ClientKey {
        let fromProxy = !trusted.isEmpty && trusted.contains(peer)
        if fromProxy, let keyHeader {
            for field in head.fields where Self.equalsLowercased(field.name.bytes(in: bytes), keyHeader) {
                let value = field.value.bytes(in: bytes)
                guard !value.isEmpty else { break }
                return Self.key(digestOf: value)
            }
        }
        let address = fromProxy
            ? ForwardedFor.client(peer: peer, trusted: trusted, count: head.fields.count) { index in
                let field = head.fields[index]
                return field.name.equalsIgnoringCase("x-forwarded-for", in: bytes) ? field.value.bytes(in: bytes) : UnsafeRawBufferPointer(start: nil, count: 0)
            }
            : peer
        return Self.key(address)
    }

    /// IPv4 clients by address, IPv6 clients by their /64 (one subscriber's network).
    static func key(_ address: IPAddress) -> ClientKey {
        address.isIPv4 ? ClientKey(high: address.high, low: address.low) : ClientKey(high: address.high, low: 0)
    }

    /// A verified token's subject as a key: the digest of `subject:` and the subject, so no
    /// key header's value can name the same budget. Allocates nothing.
    static func key(subject: String) -> ClientKey {
        var hasher = SHA256()
        hasher.update(data: Self.subjectPrefix)
        var subject = subject
        subject.withUTF8 { hasher.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        return key(hasher.finalize())
    }

    private static let subjectPrefix: [UInt8] = Array("subject:".utf8)

    /// A key header's value as a key: the first 128 bits of its SHA-256 (the same on every
    /// replica), with a low bit pattern no address key has.
    static func key(digestOf value: UnsafeRawBufferPointer) -> ClientKey {
        key(SHA256.hash(data: value))
    }

    private static func key(_ digest: SHA256Digest) -> ClientKey {
        digest.withUnsafeBytes { bytes in
            let high = bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)
            let low = bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            // Address keys have 0 or 0x0000ffff in the top half of `low` when `high` is 0.
            return ClientKey(high: high | 1, low: low)
        }
    }

    private static func equalsLowercased(_ bytes: UnsafeRawBufferPointer, _ lowercase: [UInt8]) -> Bool {
        guard bytes.count == lowercase.count else { return false }
        for index in 0..<bytes.count {
            var byte = bytes[index]
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte |= 0x20 }
            if byte != lowercase[index] { return false }
        }
        return true
    }
}

extension RateLimiter {
    /// The budget named `name` (`reads`, `writes`, `images`), when it is on.
    package func classNumber(named name: String) -> Int? {
        guard let kind = RateLimitKind.allCases.first(where: { $0.name == name }), policies[kind.rawValue] != nil else { return nil }
        return kind.rawValue
    }

    package func spend(_ number: Int, request: RequestBytes, peer: IPAddress, subject: String?) -> RateLimitFields {
        if keyBySubject, let subject { return check(policies[number]!, client: Self.key(subject: subject)) }
        return check(policies[number]!, client: client(peer: peer, head: request.head, bytes: request.buffer))
    }
}
