import ArgumentParser
import Gateway
import GatewayModels

/// The page cache: its size, and how long pages are fresh or may be served stale.
struct CacheOptions: ConfigurationOptions {
    static let title = "Page cache"
    @Option(help: "Bytes the page cache may hold (identity and gzip bodies). (env: GATEWAY_PAGE_CACHE_BYTES)")
    var pageCacheBytes: Int = 64 << 20

    @Option(help: "Seconds a cached list page is fresh. (env: GATEWAY_LIST_TTL)")
    var listTtl: Double = 30

    @Option(help: "Seconds a cached product detail is fresh. (env: GATEWAY_DETAIL_TTL)")
    var detailTtl: Double = 60

    @Option(help: "Seconds a page past its TTL is still served while one refresh runs. (env: GATEWAY_STALE_WHILE_REVALIDATE)")
    var staleWhileRevalidate: Double = 30

    @Option(help: "Seconds past its TTL a page is served when the origin fails. (env: GATEWAY_STALE_IF_ERROR)")
    var staleIfError: Double = 3600

    @Option(help: "On a list page fetched from the origin (no q, page 1 to 5), fetch the details of its first N products in the background, so a tap is a cache hit (0: off; at most 100). (env: GATEWAY_PREFETCH_DETAILS)")
    var prefetchDetails: Int = 0

    func validate() throws {
        guard (0...ListQuery.maxPageSize).contains(prefetchDetails) else { throw ValidationError("--prefetch-details must be 0 to 100.") }
        guard pageCacheBytes >= 0 else { throw ValidationError("--page-cache-bytes must not be negative.") }
        guard listTtl >= 0, detailTtl >= 0, staleWhileRevalidate >= 0, staleIfError >= 0 else {
            throw ValidationError("Cache times must not be negative.")
        }
    }

    func apply(to configuration: inout GatewayConfiguration) {
        configuration.readPath.cache.byteBudget = pageCacheBytes
        configuration.readPath.listTimeToLive = .seconds(listTtl)
        configuration.readPath.detailTimeToLive = .seconds(detailTtl)
        configuration.readPath.cache.staleWhileRevalidate = .seconds(staleWhileRevalidate)
        configuration.readPath.cache.staleIfError = .seconds(staleIfError)
        configuration.readPath.prefetchDetails = prefetchDetails
    }
}
