import Foundation
import GatewayModels

/// How a ``DemoOrigin`` runs.
public struct DemoOriginConfiguration: Sendable {
    /// Address to listen on; loopback by default.
    public var host = "127.0.0.1"
    /// Port to listen on; 0 picks a free one (kept across ``DemoOrigin/stop()`` and
    /// ``DemoOrigin/resume()``).
    public var port = 0
    /// The fault settings at start and after a reset.
    public var faults = DemoFaults()
    /// Seed of the generator that picks which requests get `errorRate` and `dropRate`.
    public var seed: UInt64 = 1
    /// A catalogue file (``DataFile``) read at start instead of the built-in seed.
    public var dataFile: String?
    /// Largest request body (five images and the fields fit easily).
    public var maxBodyBytes = 16 * 1024 * 1024
    /// How long a stop or shutdown waits for requests in flight (delayed by latency, say).
    public var shutdownGrace: Duration = .seconds(2)
    /// How long a client connection may stay silent.
    public var idleTimeout: Duration = .seconds(30)
    /// Whether each answer gets an access line (off for the gateway's embedded demo origin,
    /// whose lines would bury the gateway's own).
    public var logsRequests = true
    /// Which Open Market API it serves: `.v1` (`/items/{page}`, `/item/{id}`), or `.v2` /
    /// `.v2b` (`/healthChecker`, `/api/products…`); the other generations' routes are 404.
    public var generation: OriginGeneration = .v1
    /// v2b only: a list page holds rows `[0, limit)` instead of `[offset, limit)`, as one live
    /// capture of the real server did (`page_no=3&items_per_page=20` gave 60 items).
    public var pagingQuirk = false
    /// The vendors v2/v2b writes authenticate as (`identifier` header, `secret` in the body).
    public var vendors: [DemoVendor] = DemoVendor.demo

    public init() {}
}
