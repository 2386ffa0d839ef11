/// `GET /healthz`: the process is up and its loops answer. Never touches the origin, so a
/// container orchestrator does not restart healthy replicas when the origin is down.
enum HealthHandler {
    static let response: GatewayResponse = {
        var json = JSONWriter()
        json.beginObject()
        json.member("status", string: "ok")
        json.endObject()
        var response = GatewayResponse.json(json.bytes)
        response.headers.set("Cache-Control", "no-store")
        return response
    }()
}
