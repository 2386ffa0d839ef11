import GatewayModels
import Testing

@Suite struct CellRateTests {
    @Test(arguments: [("600/m", 600, 60), ("5/s", 5, 1), ("2/h", 2, 3600), ("1000000/s", 1_000_000, 1)])
    func readsRules(text: String, quota: Int, window: Int) throws {
        let rule = try #require(RateRule(parsing: text))
        #expect(rule.quota == quota)
        #expect(rule.windowSeconds == window)
        #expect(rule.description == text)
    }

    @Test(arguments: ["0/s", "600", "600/d", "/m", "-5/s", "+5/s", "5/S", "1000001/s", "5 /s", "5/s/s", "６/s"])
    func refusesOtherRules(text: String) {
        #expect(RateRule(parsing: text) == nil)
    }

    static let second: Int64 = 1_000_000_000

    @Test func aRestedClientMaySpendItsWholeQuotaAtOnceThenWaits() {
        let rule = RateRule(quota: 3, windowSeconds: 1)
        let now: Int64 = 50 * Self.second
        var arrival: Int64 = 0
        var seen: [CellRate.Decision] = []
        for _ in 0..<4 {
            let decision = CellRate.decide(arrival: arrival, now: now, rule: rule)
            arrival = decision.arrival
            seen.append(decision)
        }
        let third = Self.second / 3
        #expect(seen.map(\.allowed) == [true, true, true, false])
        #expect(seen.map(\.remaining) == [2, 1, 0, 0])
        #expect(seen.map(\.resetSeconds) == [1, 1, 1, 1])
        #expect(seen.map(\.retryAfterSeconds) == [0, 0, 0, 1])
        #expect(seen[2].arrival == now + 3 * third)
        // The refused one did not spend anything.
        #expect(seen[3].arrival == seen[2].arrival)
        // One interval later one more fits, and only one.
        let later = CellRate.decide(arrival: arrival, now: now + third, rule: rule)
        #expect(later.allowed)
        #expect(later.remaining == 0)
        #expect(!CellRate.decide(arrival: later.arrival, now: now + third, rule: rule).allowed)
    }

    @Test func burstAddsToTheQuota() {
        let rule = RateRule(quota: 2, windowSeconds: 60, burst: 3)
        var arrival: Int64 = 0
        var allowed = 0
        for _ in 0..<10 {
            let decision = CellRate.decide(arrival: arrival, now: 0, rule: rule)
            if decision.allowed { allowed += 1 }
            arrival = decision.arrival
        }
        #expect(allowed == 5)
        let refused = CellRate.decide(arrival: arrival, now: 0, rule: rule)
        // 2/m: one request every 30 s; five spent at once are back after 150 s.
        #expect(refused.retryAfterSeconds == 30)
        #expect(refused.resetSeconds == 150)
    }

    @Test func restedMeansTheBudgetIsFull() {
        #expect(CellRate.isRested(arrival: 10, now: 10))
        #expect(!CellRate.isRested(arrival: 11, now: 10))
    }
}
