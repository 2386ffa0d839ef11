import Crypto
import Testing

@testable import Authentication

@Suite struct TokenMemoryTests {
    private let digester = TokenDigester()

    private func digest(_ text: String, _ digester: TokenDigester? = nil) -> TokenDigest {
        Array(text.utf8).withUnsafeBytes { (digester ?? self.digester).digest($0) }
    }

    private func verified(_ keyID: String?, expiresAt: Int64 = TestKeys.now + 300) throws -> VerifiedToken {
        let kid = keyID ?? "ed-1"
        let token = TestKeys.token(
            alg: kid == "ec-1" ? "ES256" : "EdDSA", kid: kid,
            claims: TestKeys.claims().replacingOccurrences(of: #""exp":\#(TestKeys.now + 300)"#, with: #""exp":\#(expiresAt)"#))
        return try TokenVerifier.verify(Array(token.utf8), keys: TestKeys.allKeys, policy: TestKeys.policy, now: TestKeys.now)
    }

    /// A remembered token is handed back until its `exp` plus the skew, then forgotten.
    @Test func verifiedUntilExpiry() throws {
        var memory = TokenMemory()
        let token = try verified("ed-1")
        memory.remember(digest("a"), token)
        #expect(memory.lookup(digest("a"), now: TestKeys.now + 359, skew: 60) == .verified(token))
        #expect(memory.lookup(digest("b"), now: TestKeys.now, skew: 60) == .unknown)
        #expect(memory.lookup(digest("a"), now: TestKeys.now + 360, skew: 60) == .unknown)
        #expect(memory.counts.verified == 0)
    }

    @Test func forgeriesAreRemembered() {
        var memory = TokenMemory()
        memory.rememberForgery(digest("forged"))
        #expect(memory.lookup(digest("forged"), now: TestKeys.now, skew: 60) == .forged)
    }

    /// Bounded: the least recently used go first. Capacity 4: two generations of 2.
    @Test func leastRecentlyUsedGoFirst() throws {
        var memory = TokenMemory(capacity: 4, forgeryCapacity: 2)
        let token = try verified("ed-1")
        for name in ["1", "2", "3", "4"] { memory.remember(digest(name), token) }
        // "1" and "2" are the older generation; reading "1" moves it to the newer one,
        // which is full ("3", "4"): they become the older, "2" is dropped.
        #expect(memory.lookup(digest("1"), now: TestKeys.now, skew: 60) == .verified(token))
        #expect(memory.lookup(digest("2"), now: TestKeys.now, skew: 60) == .unknown)
        memory.remember(digest("5"), token)
        #expect(memory.counts.verified == 4)
        // Newer ("1", "5") are read in place; reading "4" (older) moves it to the full newer
        // generation, which turns older: "3", unread since, is dropped.
        for name in ["5", "1", "4"] {
            #expect(memory.lookup(digest(name), now: TestKeys.now, skew: 60) == .verified(token), "\(name)")
        }
        #expect(memory.lookup(digest("3"), now: TestKeys.now, skew: 60) == .unknown)
        for name in ["a", "b", "c"] { memory.rememberForgery(digest(name)) }
        #expect(memory.counts.forged == 2)
        #expect(memory.lookup(digest("a"), now: TestKeys.now, skew: 60) == .unknown)
    }

    /// A key leaving the set revokes the tokens it verified; forgeries are forgotten (new
    /// keys may verify them).
    @Test func keysChangedDropsTheirTokens() throws {
        var memory = TokenMemory()
        let byEd = try verified("ed-1")
        let byEC = try verified("ec-1")
        memory.remember(digest("ed"), byEd)
        memory.remember(digest("ec"), byEC)
        memory.rememberForgery(digest("forged"))
        memory.keysChanged(to: try TestKeys.keySet([TestKeys.p256JWK, TestKeys.rsaJWK]))
        #expect(memory.lookup(digest("ed"), now: TestKeys.now, skew: 60) == .unknown)
        #expect(memory.lookup(digest("ec"), now: TestKeys.now, skew: 60) == .verified(byEC))
        #expect(memory.lookup(digest("forged"), now: TestKeys.now, skew: 60) == .unknown)
    }

    /// The digest is keyed: stable under one digester, different under another (no one can
    /// aim a token at another's entry), and it covers every byte.
    @Test func digestsAreKeyed() {
        let one = TokenDigester()
        let other = TokenDigester()
        #expect(digest("token", one) == digest("token", one))
        #expect(digest("token", one) != digest("token", other))
        #expect(digest("token", one) != digest("tokem", one))
    }
}
