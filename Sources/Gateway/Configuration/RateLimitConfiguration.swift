import GatewayModels
import GatewaySupport

/// Per-client request budgets (`--rate-limit-*`). Off unless at least one budget is set.
public struct RateLimitConfiguration: Sendable {
    /// Product reads: `GET`/`HEAD` on `/v1/products` and under it.
    public var reads: RateRule?
    /// Product writes: any other method there (`OPTIONS` aside).
    public var writes: RateRule?
    /// Images: `/v1/images/…`.
    public var images: RateRule?
    /// Peers whose `X-Forwarded-For` (and key header) is believed.
    public var trustedProxies: AddressRanges = .none
    /// A header a trusted proxy sets to name the client (behind carrier-grade NAT many
    /// phones share one address); nil keys clients by address.
    public var keyHeader: String?
    /// `--rate-limit-key subject`: a request with a verified bearer token spends its subject's
    /// budget (one user on many networks, many users behind one carrier address); requests
    /// without one are told apart as before (address, or ``keyHeader``).
    public var keyBySubject = false
    /// Clients remembered per budget; past it, new clients share one budget until rested
    /// ones are forgotten.
    public var maxClients: Int = 1 << 20

    public init() {}

    public var isOn: Bool { reads != nil || writes != nil || images != nil }
}
