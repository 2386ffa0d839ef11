import HTTPInterface
import GatewayModels

/// The origin, in one place: where it is, which API generation it speaks, who the gateway
/// writes as, what it trusts, and the limits of the client that talks to it.
public struct OriginConfiguration: Sendable {
    /// The origin's base URL. The server needs one; the `gateway` command starts its embedded
    /// demo origin and names it here when none is given.
    public var url: String?
    /// The origin's API generation (paths, field mapping, write sequences).
    public var generation: OriginGeneration = .v1
    /// The v2/v2b vendor `identifier` sent with writes when the request carries no
    /// `Vendor-Identifier`. A secret: never logged.
    public var vendorIdentifier: String?
    /// A PEM file of CAs trusted for an https origin instead of the system's.
    public var caFile: String?
    /// Limits of the origin client (per loop).
    public var client = OriginClientConfiguration()
    /// `--origin-retry-max`: the longest backoff of a page whose fetch failed.
    public var retryMax: Duration = .seconds(30)
    /// The first backoff of a page whose fetch failed. Not a flag: tests shorten it.
    var retryFirst: Duration = .seconds(1)
    /// `--origin-breaker-*`: when nothing is sent to a failing origin for a while.
    public var breaker = BreakerConfiguration()

    public init() {}
}
