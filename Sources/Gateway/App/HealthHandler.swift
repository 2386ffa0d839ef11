import HTTPCodec
import GatewayModels
import HTTPInterface

/// `GET /healthz`: the process is up and its loops answer. Never touches the origin, so a
/// container orchestrator does not restart healthy replicas when the origin is down.
enum HealthHandler {
    static let response: GatewayResponse = {
        var response = GatewayResponse.json(HealthStatus().jsonBytes())
        response.headers.set("Cache-Control", "no-store")
        return response
    }()

    /// The status line and fields of `response`, laid out once for the stored-answer path.
    static let storedHead: [UInt8] = {
        var head: [UInt8] = []
        ResponseHeadWriter.appendStatusLine(response.status, to: &head)
        for field in response.headers { ResponseHeadWriter.appendField(field.name, field.value, to: &head) }
        return head
    }()
}
