import GatewayModels
import GatewaySupport

/// The tokens of the two-step deletes: v2 `POST /api/products/{id}/secret` hands out a
/// `product_secret` for `DELETE /api/products/{id}/{product_secret}`, v2b
/// `POST /api/products/{id}/archived` a URI `/api/products/{token}` to `DELETE`.
///
/// A token is 32 lowercase hex characters (random, so a single path segment of unreserved
/// characters), names one product, and works once: a delete that uses it removes it, and
/// deleting the product removes every token of it. Thread-safe.
///
/// The override is a test switch: while set, the token endpoints answer it verbatim instead
/// of a token (a gateway must not follow `https://evil.example/x` or `../../x`).
final class DeleteTokens: Sendable {
    private struct State {
        var products: [String: Int64] = [:]
        var override: String?
    }

    private let state = Locked(State())

    /// A new token for product `productID`.
    func issue(for productID: Int64) -> String {
        var generator = SystemRandomNumberGenerator()
        let token = [generator.next(), generator.next()].map { (word: UInt64) in
            let digits = String(word, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }.joined()
        state.withLock { $0.products[token] = productID }
        return token
    }

    /// The product `token` names, without using it up; nil for an unknown token.
    func product(for token: String) -> Int64? {
        state.withLock { $0.products[token] }
    }

    /// Uses up `token` when it names `productID`; false (and nothing changes) otherwise.
    func consume(_ token: String, for productID: Int64) -> Bool {
        state.withLock { state in
            guard state.products[token] == productID else { return false }
            state.products[token] = nil
            return true
        }
    }

    /// Drops every token of a deleted product.
    func forget(productID: Int64) {
        state.withLock { state in state.products = state.products.filter { $0.value != productID } }
    }

    /// What the token endpoints answer instead of a token; nil for real tokens.
    var override: String? {
        get { state.withLock { $0.override } }
        set { state.withLock { $0.override = newValue } }
    }

    /// No tokens and no override.
    func reset() {
        state.withLock { $0 = State() }
    }
}
