import Testing

@testable import Tracing

@Suite struct TracingConfigurationTests {
    @Test func tracingIsOffWithoutAnEndpointOrWhenDisabled() throws {
        #expect(try TracingConfiguration.resolve(environment: [:]) == nil)
        #expect(try TracingConfiguration.resolve(environment: ["OTEL_TRACES_SAMPLER": "always_on"]) == nil)
        #expect(
            try TracingConfiguration.resolve(environment: ["OTEL_SDK_DISABLED": "TRUE", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"]) == nil)
    }

    @Test func theGeneralEndpointGetsTheTracesPathAndTheTracesEndpointIsUsedAsItIs() throws {
        #expect(try TracingConfiguration.resolve(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"])?.endpoint == "http://collector:4318/v1/traces")
        #expect(try TracingConfiguration.resolve(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "https://c/otlp/"])?.endpoint == "https://c/otlp/v1/traces")
        let both = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:4318", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:4318/custom"]
        #expect(try TracingConfiguration.resolve(environment: both)?.endpoint == "http://b:4318/custom")
        var overrides = TracingConfiguration.Overrides()
        overrides.endpoint = "http://127.0.0.1:9/v1/traces"
        #expect(try TracingConfiguration.resolve(environment: both, overrides: overrides)?.endpoint == "http://127.0.0.1:9/v1/traces")
        #expect(throws: TracingConfigurationError.self) { try TracingConfiguration.resolve(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4317"]) }
    }

    @Test func theDefaultsAreTheSDKs() throws {
        let configuration = try #require(try TracingConfiguration.resolve(environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"]))
        #expect(configuration.format == .protobuf)
        #expect(configuration.gzip)
        #expect(configuration.sampler == .default)
        #expect(configuration.maxQueueSize == 2048)
        #expect(configuration.maxExportBatchSize == 512)
        #expect(configuration.scheduleDelay == .milliseconds(5000))
        #expect(configuration.exportTimeout == .milliseconds(30000))
        #expect(configuration.requestTimeout == .milliseconds(10000))
        #expect(configuration.headers.isEmpty)
        #expect(configuration.serviceName == nil)
        #expect(configuration.recordsEndUser == false)
    }

    @Test func everyStandardVariableIsRead() throws {
        let environment = [
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "https://c:4318/v1/traces",
            "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json",
            "OTEL_EXPORTER_OTLP_HEADERS": "x-general=1", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": " api-key = s%3Dcr%2Cet , x-tenant=shop ",
            "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "none", "OTEL_EXPORTER_OTLP_TIMEOUT": "2500",
            "OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE": "/etc/ca.pem",
            "OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.1",
            "OTEL_SERVICE_NAME": "edge", "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment.name=prod,team=a%20b,team=c",
            "OTEL_BSP_SCHEDULE_DELAY": "100", "OTEL_BSP_EXPORT_TIMEOUT": "4000", "OTEL_BSP_MAX_QUEUE_SIZE": "10", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "5",
        ]
        let configuration = try #require(try TracingConfiguration.resolve(environment: environment))
        #expect(configuration.format == .json)
        #expect(configuration.headers == [.init("api-key", "s=cr,et"), .init("x-tenant", "shop")])
        #expect(configuration.gzip == false)
        #expect(configuration.requestTimeout == .milliseconds(2500))
        #expect(configuration.caFile == "/etc/ca.pem")
        #expect(configuration.sampler == Sampler(root: .ratio(0.1), parentBased: true))
        #expect(configuration.serviceName == "edge")
        #expect(configuration.resourceAttributes == [.init("deployment.environment.name", "prod"), .init("team", "c")])
        #expect(configuration.scheduleDelay == .milliseconds(100))
        #expect(configuration.exportTimeout == .milliseconds(4000))
        #expect(configuration.maxQueueSize == 10)
        #expect(configuration.maxExportBatchSize == 5)
    }

    @Test func theCommandLineWinsOverTheEnvironment() throws {
        var overrides = TracingConfiguration.Overrides()
        overrides.format = "http/protobuf"
        overrides.headers = "authorization=Bearer%20t"
        overrides.sampler = "always_off"
        overrides.serviceName = "cli"
        overrides.caFile = "/cli.pem"
        overrides.recordsEndUser = true
        let environment = [
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json", "OTEL_EXPORTER_OTLP_HEADERS": "a=b",
            "OTEL_TRACES_SAMPLER": "always_on", "OTEL_SERVICE_NAME": "env", "OTEL_EXPORTER_OTLP_CERTIFICATE": "/env.pem",
        ]
        let configuration = try #require(try TracingConfiguration.resolve(environment: environment, overrides: overrides))
        #expect(configuration.format == .protobuf)
        #expect(configuration.headers == [.init("authorization", "Bearer t")])
        #expect(configuration.sampler == Sampler(root: .alwaysOff, parentBased: false))
        #expect(configuration.serviceName == "cli")
        #expect(configuration.caFile == "/cli.pem")
        #expect(configuration.recordsEndUser)
    }

    @Test func whatCannotBeUsedIsRefusedWithoutRepeatingASecret() {
        let base = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"]
        func refusal(_ extra: [String: String]) -> String? {
            do {
                _ = try TracingConfiguration.resolve(environment: base.merging(extra) { $1 })
                return nil
            } catch {
                return error.description
            }
        }
        #expect(refusal(["OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"]) == "the OTLP protocol must be http/protobuf or http/json, not grpc (gRPC is not supported)")
        #expect(refusal(["OTEL_EXPORTER_OTLP_HEADERS": "novalue"]) == "OTEL_EXPORTER_OTLP_HEADERS must be a list of name=value pairs separated by commas")
        #expect(
            refusal(["OTEL_EXPORTER_OTLP_HEADERS": "k=%zz"])
                == "OTEL_EXPORTER_OTLP_HEADERS must be a list of name=value pairs separated by commas, values percent-encoded")
        #expect(refusal(["OTEL_EXPORTER_OTLP_HEADERS": "api-key=secret%0d%0aX: y"]) == "the OTLP header api-key has a value with control characters")
        #expect(refusal(["OTEL_EXPORTER_OTLP_HEADERS": "bad name=1"]) == "the OTLP headers name a field that is not an HTTP token")
        #expect(refusal(["OTEL_EXPORTER_OTLP_COMPRESSION": "br"]) == "OTEL_EXPORTER_OTLP_COMPRESSION must be gzip or none, not br")
        #expect(refusal(["OTEL_BSP_MAX_QUEUE_SIZE": "0"]) == "OTEL_BSP_MAX_QUEUE_SIZE must be a whole number from 1 to 1000000, not 0")
        #expect(
            refusal(["OTEL_BSP_MAX_QUEUE_SIZE": "10", "OTEL_BSP_MAX_EXPORT_BATCH_SIZE": "11"])
                == "OTEL_BSP_MAX_EXPORT_BATCH_SIZE must not exceed OTEL_BSP_MAX_QUEUE_SIZE")
        #expect(refusal(["OTEL_TRACES_SAMPLER": "xray"])?.hasPrefix("unknown sampler xray") == true)
    }
}
