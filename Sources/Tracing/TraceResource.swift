/// What every exported span is about: the resource (`service.name`, `service.version`,
/// `service.instance.id`, `host.name` and `OTEL_RESOURCE_ATTRIBUTES`) and the
/// instrumentation scope (the gateway itself).
public struct TraceResource: Sendable, Equatable {
    public var attributes: [SpanAttribute]
    public var scopeName: String
    public var scopeVersion: String

    public init(attributes: [SpanAttribute], scopeName: String = "open-market-gateway", scopeVersion: String = "") {
        self.attributes = attributes
        self.scopeName = scopeName
        self.scopeVersion = scopeVersion
    }

    /// The resource of a running gateway: `extra` (from `OTEL_RESOURCE_ATTRIBUTES`, in its
    /// order) with `service.name`, `service.version`, `service.instance.id` and `host.name`
    /// set over it, as the SDKs do (`OTEL_SERVICE_NAME` wins over a `service.name` in
    /// `extra`; the others are kept when `extra` has them).
    public static func gateway(
        serviceName: String?, version: String, instanceID: String, hostName: String, extra: [(String, String)]
    ) -> TraceResource {
        var attributes: [SpanAttribute] = []
        var seen = Set<String>()
        let name = serviceName ?? extra.last { $0.0 == SemanticConventions.serviceName }?.1 ?? "open-market-gateway"
        attributes.append(SpanAttribute(SemanticConventions.serviceName, name))
        seen.insert(SemanticConventions.serviceName)
        for (key, value) in extra where !seen.contains(key) {
            seen.insert(key)
            attributes.append(SpanAttribute(key, value))
        }
        for (key, value) in [
            (SemanticConventions.serviceVersion, version), (SemanticConventions.serviceInstanceID, instanceID),
            (SemanticConventions.hostName, hostName),
        ] where !seen.contains(key) {
            attributes.append(SpanAttribute(key, value))
        }
        return TraceResource(attributes: attributes, scopeVersion: version)
    }
}
