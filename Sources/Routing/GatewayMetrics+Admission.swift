import Observability

extension GatewayMetrics {
    /// Counts one request refused with 429 by `policy` (`reads`, `writes`, `images`) on
    /// `route` (its pattern).
    package func rateLimited(route: String, policy: String) {
        counter("gateway_rate_limited_total", [("route", route), ("policy", policy)]).increment()
    }
}
