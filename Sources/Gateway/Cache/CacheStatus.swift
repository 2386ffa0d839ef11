/// RFC 9211 `Cache-Status` values, from the gateway's cache (named `open-market-gateway`).
enum CacheStatus {
    static let name = "open-market-gateway"

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
    /// Fetched from the origin (`fwd` = `miss` or `stale`) and stored.
    static func stored(fwd: String) -> String { "\(name); fwd=\(fwd); stored" }
    /// Fetched from the origin and not stored (an error).
    static func notStored(fwd: String, status: Int?) -> String {
        "\(name); fwd=\(fwd)\(status.map { "; fwd-status=\($0)" } ?? "")"
    }
}
