/// The admin listener (`--admin-port`): cache purge and cache figures, and `/metrics` when
/// `--metrics-on-admin`; every request needs the bearer token.
public struct AdminConfiguration: Sendable {
    /// Loopback unless told otherwise: the admin API is for the operator's own host.
    public var host = "127.0.0.1"
    /// Nil: no admin listener. 0 picks a free port (tests).
    public var port: Int?
    /// The bearer token; required whenever `port` is set. A secret: never logged.
    public var token: String?
    /// `/metrics` on the admin listener instead of the public port.
    public var metricsOnAdmin = false

    public init() {}

    /// Whether the admin listener serves `/metrics` (and the public port does not).
    public var servesMetrics: Bool { port != nil && metricsOnAdmin }
}
