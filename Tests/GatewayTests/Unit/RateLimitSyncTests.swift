import GatewayModels
import Testing
@testable import Gateway

@Suite struct RateLimitSyncMessageTests {
    @Test func readsWhatTheScriptPublishes() {
        let key = RateLimiter.ClientKey(high: 0, low: 0x0000_FFFF_C000_0207)
        #expect(RateLimitSync.hex(key) == "00000000000000000000ffffc0000207")
        let payload = Array("rl:0 00000000000000000000ffffc0000207 30000000,2 00000000000000010000000000000002 15,9 x 1,1 abc 5,0 00000000000000000000ffffc0000207 -1".utf8)
        let entries = RateLimitSync.parse(payload)
        #expect(entries.count == 2)
        #expect(entries.first.map { [$0.kind.rawValue, Int($0.debtMicroseconds)] } == [0, 30_000_000])
        #expect(entries.first?.client == key)
        #expect(entries.last?.kind == .images)
        #expect(entries.last?.client == RateLimiter.ClientKey(high: 1, low: 2))
    }

    @Test func aDebtMovesTheBudgetOnlyForward() {
        var configuration = RateLimitConfiguration()
        configuration.reads = RateRule(quota: 2, windowSeconds: 60)
        let limiter = RateLimiter(configuration: configuration, shared: true)
        let client = RateLimiter.ClientKey(high: 7, low: 9)
        limiter.apply(.reads, client: client, debt: .seconds(45))
        let policy = RateLimitPolicy(kind: .reads, rule: configuration.reads!)
        // 30 s per request, 60 s of budget: 45 s owed leaves nothing for now.
        #expect(!limiter.check(policy, client: client).decision.allowed)
        limiter.apply(.reads, client: client, debt: .seconds(1))
        #expect(!limiter.check(policy, client: client).decision.allowed)
        #expect(limiter.takeSpent().isEmpty)
        let other = RateLimiter.ClientKey(high: 8, low: 9)
        #expect(limiter.check(policy, client: other).decision.allowed)
        let spent = limiter.takeSpent()
        #expect(spent.map(\.count) == [1])
        #expect(spent.first?.client == other)
        #expect(limiter.takeSpent().isEmpty)
    }
}
