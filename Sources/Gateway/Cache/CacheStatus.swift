import HTTPInterface

/// RFC 9211 `Cache-Status` values, from the gateway's cache (named `open-market-gateway`).
enum CacheStatus {
    static let name = "open-market-gateway"
    /// The replicas' shared tier (Redis), a cache of its own; RFC 9211 lists it first, as the
    /// cache nearer the origin.
    static let sharedName = "open-market-gateway-shared"

    /// Served from the shared tier (`ttl` seconds of freshness left) after this process missed.
    static func sharedHit(ttl: Int, fwd: String) -> String { "\(sharedName); hit; ttl=\(ttl), \(stored(fwd: fwd))" }
    /// Fetched from the origin after both tiers missed, and stored in both.
    static func storedInBoth(fwd: String) -> String { "\(sharedName); fwd=miss; stored, \(stored(fwd: fwd))" }

    /// Served fresh from the cache; `ttl` seconds of freshness left.
    static func hit(ttl: Int) -> String { "\(name); hit; ttl=\(ttl)" }
    /// Served from the cache tier `detail` (`memory`, `disk`) of an immutable entry.
    static func hit(detail: String) -> String { "\(name); hit; detail=\(detail)" }
    /// Served stale from the cache while one refresh runs in the background.
    static let staleWhileRevalidating = "\(name); hit; fwd=stale; detail=revalidating"
    /// Served stale from the cache because the origin failed (`status` when it answered).
    static func staleIfError(status: Int?) -> String {
        "\(name); hit; fwd=stale; \(status.map { "fwd-status=\($0)" } ?? "detail=origin-unreachable")"
    }
    /// Served as stored, past its time to live, because the origin is recovering from an
    /// outage and only a few stored pages are refreshed at once.
    static let refreshDeferred = "\(name); hit; fwd=stale; detail=refresh-deferred"
    /// Fetched from the origin (`fwd` = `miss` or `stale`) and stored.
    static func stored(fwd: String) -> String { "\(name); fwd=\(fwd); stored" }
    /// Fetched from the origin and not stored (an error).
    static func notStored(fwd: String, status: Int?) -> String {
        "\(name); fwd=\(fwd)\(status.map { "; fwd-status=\($0)" } ?? "")"
    }
}

extension GatewayApplication {
    /// The access log's `cache` field of an answer, from its `Cache-Status`.
    public static func cacheOutcome(of response: GatewayResponse) -> String? {
        cacheOutcome(response.headers["Cache-Status"])
    }

    static func cacheOutcome(_ cacheStatus: String?) -> String? {
        guard let cacheStatus else { return nil }
        if cacheStatus.hasPrefix(CacheStatus.name + "; hit") { return cacheStatus.contains("fwd=stale") ? "stale" : "hit" }
        if cacheStatus.hasPrefix(CacheStatus.sharedName + "; hit") { return "shared_hit" }
        return "miss"
    }
}
