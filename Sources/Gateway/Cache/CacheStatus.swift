import HTTPInterface

/// One `Cache-Status` field value (RFC 9211) and the outcome it means for the access line:
/// made together, so the transport never reads the field back.
struct CacheStatusField: Sendable, Equatable {
    let value: String
    let outcome: CacheOutcome
}

/// RFC 9211 `Cache-Status` values, from the gateway's cache (named `open-market-gateway`).
enum CacheStatus {
    static let name = "open-market-gateway"
    /// The replicas' shared tier (Redis), a cache of its own; RFC 9211 lists it first, as the
    /// cache nearer the origin.
    static let sharedName = "open-market-gateway-shared"

    /// Served from the shared tier (`ttl` seconds of freshness left) after this process missed.
    static func sharedHit(ttl: Int, fwd: String, detail: String? = nil) -> CacheStatusField {
        CacheStatusField(value: "\(sharedName); hit; ttl=\(ttl), \(stored(fwd: fwd, detail: detail).value)", outcome: .sharedHit)
    }
    /// Fetched from the origin after both tiers missed, and stored in both.
    static func storedInBoth(fwd: String, detail: String? = nil) -> CacheStatusField {
        CacheStatusField(value: "\(sharedName); fwd=miss; stored, \(stored(fwd: fwd, detail: detail).value)", outcome: .miss)
    }

    /// Served fresh from the cache; `ttl` seconds of freshness left.
    static func hit(ttl: Int) -> CacheStatusField { CacheStatusField(value: "\(name); hit; ttl=\(ttl)", outcome: .hit) }
    /// Served from the cache tier `detail` (`memory`, `disk`) of an immutable entry.
    static func hit(detail: String) -> CacheStatusField { CacheStatusField(value: "\(name); hit; detail=\(detail)", outcome: .hit) }
    /// Served stale from the cache while one refresh runs in the background.
    static let staleWhileRevalidating = CacheStatusField(value: "\(name); hit; fwd=stale; detail=revalidating", outcome: .stale)
    /// Served stale from the cache because the origin failed (`status` when it answered).
    static func staleIfError(status: Int?) -> CacheStatusField {
        CacheStatusField(
            value: "\(name); hit; fwd=stale; \(status.map { "fwd-status=\($0)" } ?? "detail=origin-unreachable")", outcome: .stale)
    }
    /// Served as stored, past its time to live, because the origin is recovering from an
    /// outage and only a few stored pages are refreshed at once.
    static let refreshDeferred = CacheStatusField(value: "\(name); hit; fwd=stale; detail=refresh-deferred", outcome: .stale)
    /// Fetched from the origin (`fwd` = `miss` or `stale`) and stored; `detail` says why a
    /// stored page was not used (`revalidate-after-gap`).
    static func stored(fwd: String, detail: String? = nil) -> CacheStatusField {
        CacheStatusField(value: "\(name); fwd=\(fwd); stored\(detail.map { "; detail=\($0)" } ?? "")", outcome: .miss)
    }
    /// Fetched from the origin and not stored (an error).
    static func notStored(fwd: String, status: Int?) -> CacheStatusField {
        CacheStatusField(value: "\(name); fwd=\(fwd)\(status.map { "; fwd-status=\($0)" } ?? "")", outcome: .miss)
    }
}

extension GatewayError {
    /// This error with `Cache-Status` and the outcome it means.
    func adding(cacheStatus: CacheStatusField) -> GatewayError {
        var error = adding(header: "Cache-Status", cacheStatus.value)
        error.cacheOutcome = cacheStatus.outcome
        return error
    }
}
