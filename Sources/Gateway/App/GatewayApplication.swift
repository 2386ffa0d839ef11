/// The gateway's routes, assembled from its configuration.
public enum GatewayApplication {
    /// The router the server dispatches to. `metrics` must be the instance the server
    /// records into, so `/metrics` shows what the server counted.
    /// - Parameters:
    ///   - reads: the product read routes, when the gateway has an origin.
    ///   - images: the image route, when the gateway has an origin.
    public static func router(metrics: GatewayMetrics, reads: ProductReads? = nil, images: ImageReads? = nil) -> Router {
        var router = Router()
        reads?.register(in: &router)
        images?.register(in: &router)
        router.add(.get, "/healthz", .immediate { _, _ in HealthHandler.response })
        router.add(.get, "/metrics", .immediate { _, _ in
            var response = GatewayResponse(status: 200, body: metrics.render())
            response.headers.set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            response.headers.set("Cache-Control", "no-store")
            return response
        })
        return router
    }
}
