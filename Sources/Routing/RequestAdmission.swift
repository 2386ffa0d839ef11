import GatewayModels
import HTTPInterface
import GatewaySupport

/// What decides whether a request may be served now (the gateway's rate limiter): asked
/// once per request, with the class its route declares (`Router.add(limit:)`).
///
/// Thread-safe: every loop asks.
public protocol RequestAdmission: Sendable {
    /// A number for the class named `name` (`reads`), or nil when this admission does not
    /// limit it. Asked once per route when the application is made.
    func classNumber(named name: String) -> Int?

    /// Spends one request of class `number` for the client that sent `request` from
    /// `peer` (`subject`: its verified bearer token's, when it has one): the fields its
    /// answer carries and whether it may be served. Allocates nothing for a known client.
    func spend(_ number: Int, request: RequestBytes, peer: IPAddress, subject: String?) -> RateLimitFields
}
