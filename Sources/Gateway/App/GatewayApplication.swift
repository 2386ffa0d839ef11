/// The gateway's routes, assembled from its configuration.
public enum GatewayApplication {
    /// The router the server dispatches to.
    public static func router() -> Router {
        var router = Router()
        router.add(.get, "/healthz", .immediate { _, _ in HealthHandler.response })
        return router
    }
}
