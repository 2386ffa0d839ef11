import ArgumentParser
import Gateway

/// The admin listener: purges and cache figures, behind a bearer token.
struct AdminOptions: ConfigurationOptions {
    static let title = "Admin listener"
    static let secrets = ["admin-token"]

    @Option(help: "Port of the admin listener (POST /admin/purge, GET /admin/cache); needs an admin token. Off by default. (env: GATEWAY_ADMIN_PORT)")
    var adminPort: Int?

    @Option(help: "Address of the admin listener. (env: GATEWAY_ADMIN_HOST)")
    var adminHost: String = "127.0.0.1"

    @Option(help: "Bearer token of the admin listener; never logged. Prefer GATEWAY_ADMIN_TOKEN_FILE, which shows in no process list. (env: GATEWAY_ADMIN_TOKEN)")
    var adminToken: String?

    @Flag(help: "Serve /metrics on the admin listener instead of the public port. (env: GATEWAY_METRICS_ON_ADMIN=true)")
    var metricsOnAdmin = false

    func validate() throws {
        if let adminPort {
            guard (0...65535).contains(adminPort) else { throw ValidationError("--admin-port must be 0 to 65535.") }
            guard let adminToken, !adminToken.isEmpty else {
                throw ValidationError("--admin-port needs an admin token: --admin-token, GATEWAY_ADMIN_TOKEN or GATEWAY_ADMIN_TOKEN_FILE.")
            }
            guard adminToken.utf8.count >= 16 else { throw ValidationError("The admin token must be at least 16 characters.") }
        }
        guard !metricsOnAdmin || adminPort != nil else { throw ValidationError("--metrics-on-admin needs --admin-port.") }
    }

    func apply(to configuration: inout GatewayConfiguration) {
        configuration.admin.port = adminPort
        configuration.admin.host = adminHost
        configuration.admin.token = adminToken
        configuration.admin.metricsOnAdmin = metricsOnAdmin
    }
}
