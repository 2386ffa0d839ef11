import ArgumentParser
import Foundation
import Gateway
import Tracing

/// Traces over OTLP/HTTP. Each option wins over its `GATEWAY_TRACING_*` variable, which wins
/// over OpenTelemetry's own (`OTEL_EXPORTER_OTLP_*`, `OTEL_TRACES_SAMPLER*`,
/// `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_BSP_*`, `OTEL_SDK_DISABLED`), read
/// as the OpenTelemetry SDKs read them. Off unless an endpoint is set.
struct TracingOptions: ConfigurationOptions {
    static let title = "Tracing (OpenTelemetry)"
    static let secrets = ["tracing-headers"]

    @Option(help: "The collector's OTLP/HTTP traces URL, whole (http://collector:4318/v1/traces); turns tracing on. Default: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, or OTEL_EXPORTER_OTLP_ENDPOINT with /v1/traces. (env: GATEWAY_TRACING_ENDPOINT)")
    var tracingEndpoint: String?

    @Option(help: "http/protobuf or http/json. Default: OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf. (env: GATEWAY_TRACING_PROTOCOL)")
    var tracingProtocol: String?

    @Option(help: "Header fields sent to the collector, name=value pairs separated by commas, values percent-encoded (an API key); a secret, never logged. Default: OTEL_EXPORTER_OTLP_TRACES_HEADERS or OTEL_EXPORTER_OTLP_HEADERS. (env: GATEWAY_TRACING_HEADERS, or a file named by GATEWAY_TRACING_HEADERS_FILE)")
    var tracingHeaders: String?

    @Option(help: "always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off or parentbased_traceidratio. Default: OTEL_TRACES_SAMPLER, else parentbased_always_on. (env: GATEWAY_TRACING_SAMPLER)")
    var tracingSampler: String?

    @Option(help: "The ratio of the traceidratio samplers, 0 to 1. Default: OTEL_TRACES_SAMPLER_ARG, else 1. (env: GATEWAY_TRACING_SAMPLER_ARG)")
    var tracingSamplerArg: String?

    @Option(help: "service.name on every span. Default: OTEL_SERVICE_NAME, else open-market-gateway. (env: GATEWAY_TRACING_SERVICE_NAME)")
    var tracingServiceName: String?

    @Option(help: "PEM file of CAs trusted for an https collector instead of the system's. Default: OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE or OTEL_EXPORTER_OTLP_CERTIFICATE. (env: GATEWAY_TRACING_CA_FILE)")
    var tracingCaFile: String?

    @Flag(help: "Put enduser.id (a verified token's subject) on server spans; off by default, as the subject identifies a person. (env: GATEWAY_TRACING_ENDUSER_ID=true)")
    var tracingEnduserId = false

    var overrides: TracingConfiguration.Overrides {
        var overrides = TracingConfiguration.Overrides()
        overrides.endpoint = tracingEndpoint
        overrides.format = tracingProtocol
        overrides.headers = tracingHeaders
        overrides.sampler = tracingSampler
        overrides.samplerArgument = tracingSamplerArg
        overrides.serviceName = tracingServiceName
        overrides.caFile = tracingCaFile
        overrides.recordsEndUser = tracingEnduserId
        return overrides
    }

    /// The settings from these options over the process's environment.
    func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) throws(TracingConfigurationError) -> TracingConfiguration? {
        try TracingConfiguration.resolve(environment: environment, overrides: overrides)
    }

    func validate() throws {
        let resolved: TracingConfiguration?
        do {
            resolved = try resolve()
        } catch {
            throw ValidationError("Tracing: \(error.description).")
        }
        if let caFile = resolved?.caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ValidationError("Tracing: the CA file \(caFile) cannot be read.")
        }
    }

    func apply(to configuration: inout GatewayConfiguration) {
        configuration.tracing = try? resolve()
    }
}
