import GatewaySupport

/// The body of `GET /healthz`: `{"status":"ok"}`.
public struct HealthStatus: Sendable, Hashable, ContractJSONEncodable {
    public var status: String

    public init(status: String = "ok") {
        self.status = status
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("status"); writer.string(status)
        writer.endObject()
    }
}
