/// `WAIT`'s arguments: how many replicas must acknowledge the connection's writes so far,
/// and how long Redis may wait for them (it answers how many did).
struct RedisReplicaWait: Sendable, Equatable {
    var replicas: Int
    var timeout: Duration

    init(replicas: Int, timeout: Duration) {
        self.replicas = replicas
        self.timeout = timeout
    }

    /// `["WAIT", replicas, milliseconds]`.
    var command: [[UInt8]] {
        let milliseconds = max(1, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        return [Array("WAIT".utf8), Array(String(replicas).utf8), Array(String(milliseconds).utf8)]
    }
}
