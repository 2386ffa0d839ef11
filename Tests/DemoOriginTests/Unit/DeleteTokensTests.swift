@testable import DemoOrigin
import Testing

@Suite struct DeleteTokensTests {
    @Test func tokensAre32HexCharactersAndWorkOnceForTheirProduct() {
        let tokens = DeleteTokens()
        let token = tokens.issue(for: 7)
        #expect(token.utf8.count == 32)
        #expect(token.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) })
        #expect(tokens.issue(for: 7) != token)
        #expect(tokens.product(for: token) == 7)
        #expect(!tokens.consume(token, for: 8))
        #expect(tokens.consume(token, for: 7))
        #expect(!tokens.consume(token, for: 7))
        #expect(tokens.product(for: token) == nil)
    }

    @Test func forgettingAProductDropsItsTokensAndResetDropsTheOverride() {
        let tokens = DeleteTokens()
        let first = tokens.issue(for: 3)
        let second = tokens.issue(for: 3)
        let other = tokens.issue(for: 4)
        tokens.forget(productID: 3)
        #expect(tokens.product(for: first) == nil)
        #expect(tokens.product(for: second) == nil)
        #expect(tokens.product(for: other) == 4)
        tokens.override = "../../x"
        #expect(tokens.override == "../../x")
        tokens.reset()
        #expect(tokens.override == nil)
        #expect(tokens.product(for: other) == nil)
    }
}
