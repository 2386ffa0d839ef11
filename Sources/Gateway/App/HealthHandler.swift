import GatewayModels

/// `GET /healthz`: the process is up and its loops answer. Never touches the origin, so a
/// container orchestrator does not restart healthy replicas when the origin is down.
enum HealthHandler {
    static let response: GatewayResponse = {
        var response = GatewayResponse.json(HealthStatus().jsonBytes())
        response.headers.set("Cache-Control", "no-store")
        return response
    }()
}
