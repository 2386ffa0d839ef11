import HTTPCodec
import GatewayModels
import HTTPInterface
import GatewaySupport

/// `GET /healthz`: the process is up and its loops answer. Never touches the origin, so a
/// container orchestrator does not restart healthy replicas when the origin is down.
enum HealthHandler {
    static let response: GatewayResponse = {
        var response = GatewayResponse.json(HealthStatus().jsonBytes())
        response.headers.set("Cache-Control", "no-store")
        return response
    }()

    /// The status line and fields of `response`, laid out once for the stored-answer path.
    static let storedHead = StoredFields(status: response.status, fields: response.headers.map { ($0.name, $0.value) })
}
