/// How a cache took part in an answer: the access line's `cache` field. The application sets
/// it on the answer (``GatewayResponse/cacheOutcome``, ``GatewayError/cacheOutcome``) beside
/// the `Cache-Status` field it describes; the transport logs it as it is and reads no header.
public enum CacheOutcome: String, Sendable, Hashable {
    /// Served fresh from this process's cache.
    case hit
    /// Served stale from this process's cache (while revalidating, on an origin error, or
    /// with its refresh deferred).
    case stale
    /// Served from the replicas' shared tier after this process missed.
    case sharedHit = "shared_hit"
    /// Fetched from the origin (stored or not).
    case miss
}
