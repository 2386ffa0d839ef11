import Gateway
import Logging
import Observability

extension GatewayApplication {
    /// The admin listener of a gateway whose routes are `routes`, when
    /// `configuration.admin.port` is set: one loop on the admin host and port, plain HTTP/1.1,
    /// no rate limits, with the replicas' Redis for purges. Not started.
    ///
    /// - Throws: `AdminConfigurationError` when the port is set without a token.
    public static func adminServer(
        configuration: GatewayConfiguration, routes: OriginRoutes, metrics: GatewayMetrics, logger: Logger
    ) throws -> GatewayServer? {
        guard let port = configuration.admin.port else { return nil }
        guard let token = configuration.admin.token, !token.isEmpty else {
            throw AdminConfigurationError(
                reason: "--admin-port needs a token: --admin-token, GATEWAY_ADMIN_TOKEN or GATEWAY_ADMIN_TOKEN_FILE")
        }
        var admin = configuration
        admin.host = configuration.admin.host
        admin.port = port
        admin.threads = 1
        admin.tls = nil
        admin.http2 = false
        admin.rateLimits = RateLimitConfiguration()
        let router = AdminRoutes.router(token: token, routes: routes, metrics: metrics, servesMetrics: configuration.admin.servesMetrics)
        var adminLogger = logger
        adminLogger[metadataKey: "listener"] = "admin"
        return GatewayServer(configuration: admin, router: router, logger: adminLogger, metrics: metrics, reportsMetrics: false)
    }
}
