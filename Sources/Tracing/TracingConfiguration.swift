import GatewaySupport
import HTTPCodec

/// Where and how spans are exported, and which are recorded. Tracing is on only when an
/// endpoint is set (`--tracing-endpoint`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` or
/// `OTEL_EXPORTER_OTLP_ENDPOINT`) and `OTEL_SDK_DISABLED` is not `true`.
public struct TracingConfiguration: Sendable, Equatable {
    /// OTLP over HTTP, in protobuf or JSON (`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`).
    public enum WireFormat: String, Sendable {
        case protobuf = "http/protobuf"
        case json = "http/json"

        public var contentType: String { self == .protobuf ? "application/x-protobuf" : "application/json" }
    }

    /// The URL spans are POSTed to, whole (`…/v1/traces`).
    public var endpoint: String
    public var format: WireFormat = .protobuf
    /// Sent with every export (an API key, a tenant): secrets, never logged.
    public var headers: [Header] = []
    /// gzip the body (`Content-Encoding: gzip`); off only with `…_COMPRESSION=none`.
    public var gzip = true
    public var sampler: Sampler = .default
    /// `OTEL_SERVICE_NAME`; nil for `open-market-gateway` (or `service.name` in the resource
    /// attributes).
    public var serviceName: String?
    /// `OTEL_RESOURCE_ATTRIBUTES`, in order, each key once (the last value wins).
    public var resourceAttributes: [Header] = []
    /// The batch processor (`OTEL_BSP_*`, the SDKs' defaults).
    public var maxQueueSize = 2048
    public var maxExportBatchSize = 512
    public var scheduleDelay: Duration = .milliseconds(5000)
    /// How long one export may take, retries included (`OTEL_BSP_EXPORT_TIMEOUT`).
    public var exportTimeout: Duration = .milliseconds(30000)
    /// How long one request to the collector may take (`OTEL_EXPORTER_OTLP_TRACES_TIMEOUT`).
    public var requestTimeout: Duration = .milliseconds(10000)
    /// PEM file of CAs trusted for an https collector instead of the system's.
    public var caFile: String?
    /// Whether server spans carry `enduser.id` (a verified token's subject).
    public var recordsEndUser = false

    /// A name and value: a header sent to the collector, or a resource attribute.
    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(endpoint: String) {
        self.endpoint = endpoint
    }

    /// What the command line sets; each wins over the environment.
    public struct Overrides: Sendable, Equatable {
        public var endpoint: String?
        public var format: String?
        public var headers: String?
        public var sampler: String?
        public var samplerArgument: String?
        public var serviceName: String?
        public var caFile: String?
        public var recordsEndUser = false

        public init() {}
    }

    /// The settings from OpenTelemetry's standard variables in `environment`, with
    /// `overrides` over them; nil when tracing is off (no endpoint, or `OTEL_SDK_DISABLED`).
    ///
    /// - Throws: `TracingConfigurationError` naming the first variable or option that cannot
    ///   be used (an endpoint that is not http or https, gRPC, an unknown sampler, a header
    ///   list that does not parse, a number out of range).
    public static func resolve(environment: [String: String], overrides: Overrides = Overrides()) throws(TracingConfigurationError)
        -> TracingConfiguration?
    {
        func variable(_ name: String) -> String? {
            guard let value = environment[name]?.trimmingSpaces(), !value.isEmpty else { return nil }
            return value
        }
        /// The traces-specific variable, else the general one.
        func signal(_ suffix: String) -> (name: String, value: String)? {
            if let value = variable("OTEL_EXPORTER_OTLP_TRACES_" + suffix) { return ("OTEL_EXPORTER_OTLP_TRACES_" + suffix, value) }
            if let value = variable("OTEL_EXPORTER_OTLP_" + suffix) { return ("OTEL_EXPORTER_OTLP_" + suffix, value) }
            return nil
        }
        if variable("OTEL_SDK_DISABLED")?.lowercased() == "true" { return nil }
        let endpoint: String
        if let given = overrides.endpoint {
            endpoint = given
        } else if let value = variable("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
            endpoint = value
        } else if let base = variable("OTEL_EXPORTER_OTLP_ENDPOINT") {
            endpoint = (base.hasSuffix("/") ? String(base.dropLast()) : base) + "/v1/traces"
        } else {
            return nil
        }
        let lowered = endpoint.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            throw TracingConfigurationError("the traces endpoint must be an http or https URL, not \(endpoint)")
        }
        var configuration = TracingConfiguration(endpoint: endpoint)

        if let format = overrides.format ?? signal("PROTOCOL")?.value {
            guard let parsed = WireFormat(rawValue: format) else {
                throw TracingConfigurationError("the OTLP protocol must be http/protobuf or http/json, not \(format) (gRPC is not supported)")
            }
            configuration.format = parsed
        }
        if let (name, list) = signal("HEADERS") {
            configuration.headers = try parseList(list, what: name)
        }
        if let list = overrides.headers {
            configuration.headers = try parseList(list, what: "--tracing-headers")
        }
        for header in configuration.headers {
            guard !header.name.isEmpty, header.name.utf8.allSatisfy(HTTPSyntax.isTokenByte) else {
                throw TracingConfigurationError("the OTLP headers name a field that is not an HTTP token")
            }
            guard header.value.utf8.allSatisfy(HTTPSyntax.isFieldValueByte) else {
                // The value is a secret: never repeated in the message.
                throw TracingConfigurationError("the OTLP header \(header.name) has a value with control characters")
            }
        }
        if let (name, compression) = signal("COMPRESSION") {
            switch compression.lowercased() {
            case "gzip": configuration.gzip = true
            case "none": configuration.gzip = false
            default: throw TracingConfigurationError("\(name) must be gzip or none, not \(compression)")
            }
        }
        if let (name, milliseconds) = signal("TIMEOUT") {
            configuration.requestTimeout = .milliseconds(try number(milliseconds, name, 1...600_000))
        }
        configuration.caFile = overrides.caFile ?? signal("CERTIFICATE")?.value

        let samplerName = overrides.sampler ?? variable("OTEL_TRACES_SAMPLER")
        let samplerArgument = overrides.samplerArgument ?? variable("OTEL_TRACES_SAMPLER_ARG")
        if let samplerName {
            configuration.sampler = try Sampler(name: samplerName, argument: samplerArgument)
        }
        configuration.serviceName = overrides.serviceName ?? variable("OTEL_SERVICE_NAME")
        if let attributes = variable("OTEL_RESOURCE_ATTRIBUTES") {
            var unique: [Header] = []
            for attribute in try parseList(attributes, what: "OTEL_RESOURCE_ATTRIBUTES") {
                unique.removeAll { $0.name == attribute.name }
                unique.append(attribute)
            }
            configuration.resourceAttributes = unique
        }
        if let value = variable("OTEL_BSP_SCHEDULE_DELAY") {
            configuration.scheduleDelay = .milliseconds(try number(value, "OTEL_BSP_SCHEDULE_DELAY", 1...3_600_000))
        }
        if let value = variable("OTEL_BSP_EXPORT_TIMEOUT") {
            configuration.exportTimeout = .milliseconds(try number(value, "OTEL_BSP_EXPORT_TIMEOUT", 1...3_600_000))
        }
        if let value = variable("OTEL_BSP_MAX_QUEUE_SIZE") {
            configuration.maxQueueSize = try number(value, "OTEL_BSP_MAX_QUEUE_SIZE", 1...1_000_000)
        }
        if let value = variable("OTEL_BSP_MAX_EXPORT_BATCH_SIZE") {
            configuration.maxExportBatchSize = try number(value, "OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 1...1_000_000)
        }
        guard configuration.maxExportBatchSize <= configuration.maxQueueSize else {
            throw TracingConfigurationError("OTEL_BSP_MAX_EXPORT_BATCH_SIZE must not exceed OTEL_BSP_MAX_QUEUE_SIZE")
        }
        configuration.recordsEndUser = overrides.recordsEndUser
        return configuration
    }

    /// `key1=value1,key2=value2` (the W3C Baggage form the OpenTelemetry variables use):
    /// spaces around names and values trimmed, values percent-decoded.
    static func parseList(_ text: String, what: String) throws(TracingConfigurationError) -> [Header] {
        var result: [Header] = []
        for member in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = member.trimmingSpaces()
            if trimmed.isEmpty { continue }
            guard let equals = trimmed.firstIndex(of: "=") else {
                throw TracingConfigurationError("\(what) must be a list of name=value pairs separated by commas")
            }
            let name = String(trimmed[..<equals]).trimmingSpaces()
            guard !name.isEmpty, let value = PercentDecoding.decode(Substring(trimmed[trimmed.index(after: equals)...].trimmingSpaces())) else {
                throw TracingConfigurationError("\(what) must be a list of name=value pairs separated by commas, values percent-encoded")
            }
            result.append(Header(name, value))
        }
        return result
    }

    private static func number(_ text: String, _ name: String, _ range: ClosedRange<Int>) throws(TracingConfigurationError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw TracingConfigurationError("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(text)")
        }
        return value
    }
}
