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

    /// The router of a gateway in front of `configuration.origin`: product reads with
    /// signed image URLs, and the image route. Returns the image routes too (tests look
    /// into their caches).
    ///
    /// - Throws: `OriginEndpointError` for an unusable origin URL, `ImageSigningKeyError`
    ///   when the signing key cannot be read or created, or a file-system error when the
    ///   image cache directory cannot be created.
    public static func originRouter(configuration: GatewayConfiguration, metrics: GatewayMetrics) throws -> (Router, ImageReads) {
        let endpoint = try OriginEndpoint(url: configuration.origin ?? "")
        let images = try ImageReads(
            origin: endpoint, configuration: configuration.images, signer: try ImageSigner.make(for: configuration.images),
            metrics: metrics)
        let reads = ProductReads(
            endpoint: endpoint, configuration: configuration.readPath, compression: configuration.compression, metrics: metrics,
            imageURL: images.imageURL)
        return (router(metrics: metrics, reads: reads, images: images), images)
    }
}
