import GatewayModels
import HTTPCodec
@testable import HTTPInterface
import Logging
import Routing
import Testing
@testable import Gateway
import GatewaySupport

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
        #expect(!limiter.check(policy, client: client).allowed)
        limiter.apply(.reads, client: client, debt: .seconds(1))
        #expect(!limiter.check(policy, client: client).allowed)
        #expect(limiter.takeSpent().isEmpty)
        let other = RateLimiter.ClientKey(high: 8, low: 9)
        #expect(limiter.check(policy, client: other).allowed)
        let spent = limiter.takeSpent()
        #expect(spent.map(\.count) == [1])
        #expect(spent.first?.client == other)
        #expect(limiter.takeSpent().isEmpty)
    }
}

@Suite struct RateLimiterTests {
    static func key(_ text: String) -> RateLimiter.ClientKey {
        RateLimiter.key(IPAddress(text)!)
    }

    /// IPv4 clients by address; IPv6 clients by /64; a key header by its digest.
    @Test func keysClients() {
        #expect(Self.key("2001:db8:1:2::5") == Self.key("2001:db8:1:2:ffff::1"))
        #expect(Self.key("2001:db8:1:2::5") != Self.key("2001:db8:1:3::5"))
        #expect(Self.key("192.0.2.1") != Self.key("192.0.2.2"))
        #expect(Self.key("::ffff:192.0.2.1") == Self.key("192.0.2.1"))
        let a = Array("phone-a".utf8).withUnsafeBytes { RateLimiter.key(digestOf: $0) }
        let again = Array("phone-a".utf8).withUnsafeBytes { RateLimiter.key(digestOf: $0) }
        let b = Array("phone-b".utf8).withUnsafeBytes { RateLimiter.key(digestOf: $0) }
        #expect(a == again)
        #expect(a != b)
        #expect(a.high & 1 == 1)
    }

    /// Which budget a request spends: the class its route declares in the gateway's route
    /// table, judged from the method and the path, escaped or not, before any answer.
    @Test func choosesThePolicyByMethodAndPath() throws {
        var configuration = RateLimitConfiguration()
        configuration.reads = RateRule(quota: 1, windowSeconds: 1)
        configuration.writes = RateRule(quota: 2, windowSeconds: 1)
        let limiter = RateLimiter(configuration: configuration)
        let harness = try ProductWritesHandlerTests.harness(.v2) { _ in ProductWritesHandlerTests.text("{}") }
        var router = harness.router
        router.add(.get, "/healthz", .immediate { _, _ in GatewayResponse(status: 200) })
        let application = RouterApplication(router: router, admission: limiter, logger: Logger.quiet("limits"))
        func policy(_ method: String, _ path: String) -> String? {
            var decoder = RequestDecoder()
            var buffer = Array("\(method) \(path) HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
            return buffer.withUnsafeMutableBytes { bytes in
                guard case .complete(let message) = decoder.decode(bytes) else { return "unparsed" }
                let request = RequestBytes(buffer: UnsafeRawBufferPointer(bytes), head: message.head)
                return application.classify(request, peer: IPAddress("192.0.2.1")!).rateLimit?.policyName
            }
        }
        #expect(policy("GET", "/v1/products") == "reads")
        #expect(policy("HEAD", "/v1/products/3") == "reads")
        #expect(policy("POST", "/v1/products") == "writes")
        #expect(policy("DELETE", "/v1/products/3") == "writes")
        #expect(policy("OPTIONS", "/v1/products") == nil)
        #expect(policy("GET", "/v1/productsX") == nil)
        #expect(policy("GET", "/healthz") == nil)
        #expect(policy("GET", "/metrics") == nil)
        // Routes match decoded segments: an escaped path spends the same budget.
        #expect(policy("GET", "/v1/%70roducts/3") == "reads")
        #expect(policy("GET", "/%76%31/products") == "reads")
        #expect(policy("PATCH", "/v1/product%73/3") == "writes")
        #expect(policy("GET", "/v1/%zzproducts") == nil)
        // Paths under the resource that no route takes (404s) spend its budget too.
        #expect(policy("GET", "/v1/products/5/x") == "reads")
        #expect(policy("HEAD", "/v1/products/") == "reads")
        #expect(policy("POST", "/v1/products/5/x") == "writes")
        #expect(policy("GET", "/v1/products%2F5") == "reads")
        #expect(policy("OPTIONS", "/v1/products/5/x") == nil)
        // Images have no budget here.
        #expect(policy("GET", "/v1/images/abc") == nil)
    }

    /// Past its bound a table forgets rested clients; when none is rested, newcomers share
    /// one budget.
    @Test func aFullTableSharesOneBudgetAmongNewcomers() {
        var configuration = RateLimitConfiguration()
        configuration.reads = RateRule(quota: 1, windowSeconds: 3600)
        configuration.maxClients = RateLimiter.shardCount * 1024
        let limiter = RateLimiter(configuration: configuration)
        let rule = configuration.reads!
        var allowed = 0
        for index in 0..<(configuration.maxClients * 2) {
            let client = RateLimiter.ClientKey(high: 0, low: UInt64(index))
            if limiter.check(.reads, rule: rule, client: client, now: 0).allowed { allowed += 1 }
        }
        // Each shard holds its share and one shared newcomers' budget.
        #expect(limiter.clientCount(.reads) == configuration.maxClients + RateLimiter.shardCount)
        #expect(allowed == configuration.maxClients + RateLimiter.shardCount)
        // An hour later every client is rested: room again.
        let later = Int64(3601) * 1_000_000_000
        #expect(limiter.check(.reads, rule: rule, client: RateLimiter.ClientKey(high: 9, low: 9), now: later).allowed)
        #expect(limiter.clientCount(.reads) < configuration.maxClients)
    }
}
