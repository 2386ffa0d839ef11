import Foundation

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

    public init() {}
}
