import HTTPInterface
import Transport

/// Where a ``RedisConnection`` connects: asked at every connection attempt.
package protocol RedisNodeSource: AnyObject, Sendable {
    /// Calls `then` on `loop`'s thread with the node to connect to, or nil when none is known
    /// now (the connection tries again later). `failed`: the node the previous attempt
    /// used, when it failed (lost, refused, not the primary); nil at the first attempt.
    /// Called on `loop`'s thread.
    func node(after failed: RedisNode?, on loop: EventLoop, then: @escaping @Sendable (RedisNode?) -> Void)
    /// A connection to `node` is ready: it answered its set-up, and said with `ROLE` that it
    /// is the primary where ``followsFailovers``. Any loop's thread.
    func connected(to node: RedisNode)
    /// Whether the node must be the primary: a connection asks `ROLE` at set-up and at each
    /// heartbeat and leaves a node that says it is a replica, and leaves at a `READONLY`
    /// answer (a primary demoted under it).
    var followsFailovers: Bool { get }
    /// How the log names a connection to `node` (never with a password).
    func describe(_ node: RedisNode?) -> String
}

/// The one server a `redis://` or `rediss://` URL names.
package final class FixedRedisNode: RedisNodeSource {
    private let configuration: RedisConfiguration

    package init(_ configuration: RedisConfiguration) { self.configuration = configuration }

    package func node(after _: RedisNode?, on _: EventLoop, then: @escaping @Sendable (RedisNode?) -> Void) {
        then(RedisNode(host: configuration.host, port: configuration.port))
    }

    package func connected(to _: RedisNode) {}
    package var followsFailovers: Bool { false }
    package func describe(_: RedisNode?) -> String { configuration.description }
}

/// The sentinels, one after another: the next one each time the current one fails (the
/// subscription to `+switch-master` uses it).
final class SentinelRotation: RedisNodeSource {
    private let nodes: [RedisNode]

    init(_ nodes: [RedisNode]) {
        precondition(!nodes.isEmpty, "a sentinel URL names at least one sentinel")
        self.nodes = nodes
    }

    func node(after failed: RedisNode?, on _: EventLoop, then: @escaping @Sendable (RedisNode?) -> Void) {
        guard let failed, let index = nodes.firstIndex(of: failed) else { return then(nodes[0]) }
        then(nodes[(index + 1) % nodes.count])
    }

    func connected(to _: RedisNode) {}
    var followsFailovers: Bool { false }
    func describe(_ node: RedisNode?) -> String { "sentinel \(node ?? nodes[0])" }
}
