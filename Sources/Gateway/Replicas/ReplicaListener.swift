/// Hears the other replicas through the shared Redis: what they wrote (so this process drops
/// the pages it made untrue), and whether the subscription works at all (Pub/Sub is
/// at-most-once: while it does not, messages are lost, and L1 pages cannot be trusted).
///
/// The server subscribes on its first loop when `--redis-url` is set; both methods run on
/// that loop's thread.
public protocol ReplicaListener: Sendable {
    /// The channel to subscribe to.
    var channel: String { get }
    /// A message on the channel (any replica's, this one's too).
    func replicaMessage(_ payload: [UInt8])
    /// The subscription began (`true`) or ended (`false`).
    func replicaLink(up: Bool)
}
