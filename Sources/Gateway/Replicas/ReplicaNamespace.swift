import GatewayModels

/// The prefixes of the gateway's keys in the shared Redis. Replicas in front of one origin
/// share one namespace; a replica configured for another origin or generation never reads
/// the first one's records.
enum ReplicaNamespace {
    /// `omg:<16 hex digits>:`: for records about writes (`Idempotency-Key`), named by the
    /// origin's URL and generation only, so a rolling deploy that changes anything else still
    /// finds every key.
    static func writes(origin: String, generation: OriginGeneration) -> String {
        let digest = IdempotencyRecord.digest([Array("writes".utf8), Array(origin.utf8), Array(generation.rawValue.utf8)])
        return "omg:" + digest.prefix(16) + ":"
    }
}
