import GatewayModels
import Testing
@testable import Gateway
@testable import GatewayCLI

@Suite struct CommandTests {
    @Test func environmentFillsOptionsTheCommandLineLeftOut() {
        let merged = EnvironmentOptions.merge(
            arguments: ["--port", "9000", "--threads=3"],
            environment: ["GATEWAY_PORT": "1", "GATEWAY_THREADS": "7", "GATEWAY_MAX_BODY_BYTES": "2048", "GATEWAY_LOG_LEVEL": "debug", "OTHER": "x"])
        #expect(merged == ["--port", "9000", "--threads=3", "--max-body-bytes", "2048", "--log-level", "debug"])
    }

    @Test func everyOptionHasAnEnvironmentVariable() throws {
        #expect(EnvironmentOptions.variable(for: "max-body-bytes") == "GATEWAY_MAX_BODY_BYTES")
        let help = GatewayCommand.helpMessage()
        for name in EnvironmentOptions.names {
            #expect(help.contains("--\(name)"), "\(name)")
            #expect(help.contains(EnvironmentOptions.variable(for: name)), "\(name)")
        }
        // And the other way: every option the help lists is read from the environment.
        let listed = Set(help.matches(of: /--([a-z][a-z-]*)/).map { String($0.1) }).subtracting(["help"])
        #expect(listed.subtracting(EnvironmentOptions.names).isEmpty, "\(listed.subtracting(EnvironmentOptions.names))")
    }

    @Test func optionsBecomeTheConfiguration() throws {
        let command = try GatewayCommand.parse([
            "--host", "127.0.0.1", "--port", "0", "--threads", "3", "--origin", "https://origin.example",
            "--max-body-bytes", "1000", "--max-header-bytes", "4096", "--idle-timeout", "2.5", "--shutdown-grace", "1",
            "--gzip-min-bytes", "10",
        ])
        let configuration = command.gatewayConfiguration
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.port == 0)
        #expect(configuration.threads == 3)
        #expect(configuration.origin == "https://origin.example")
        #expect(configuration.maxBodyBytes == 1000)
        #expect(configuration.maxHeaderBytes == 4096)
        #expect(configuration.idleTimeout == .milliseconds(2500))
        #expect(configuration.shutdownGrace == .seconds(1))
        #expect(configuration.compression.minimumBytes == 10)
    }

    @Test func imageOptionsBecomeTheConfiguration() throws {
        let command = try GatewayCommand.parse([
            "--public-url", "https://api.example.com", "--cache-dir", "/var/cache/gateway", "--image-signing-key",
            "0123456789abcdef-key", "--image-host", "cdn.example.com", "--image-host", "img.example.com:8443,10.0.0.5",
            "--max-image-bytes", "2048", "--image-memory-bytes", "4096", "--image-disk-bytes", "8192",
        ])
        let images = command.gatewayConfiguration.images
        #expect(images.publicURL == "https://api.example.com")
        #expect(images.cacheDirectory == "/var/cache/gateway")
        #expect(images.signingKey == "0123456789abcdef-key")
        #expect(images.allowedHosts == ["cdn.example.com", "img.example.com:8443", "10.0.0.5"])
        #expect(images.maxImageBytes == 2048)
        #expect(images.memoryBytes == 4096)
        #expect(images.diskBytes == 8192)
        #expect(images.resolveTimeout == .seconds(2))
        let defaults = try GatewayCommand.parse([]).gatewayConfiguration.images
        #expect(defaults.cacheDirectory == ".gateway-cache")
        #expect(defaults.maxImageBytes == 10_485_760)
        #expect(defaults.memoryBytes == 67_108_864)
        #expect(defaults.diskBytes == 1_073_741_824)
        #expect(defaults.signingKey == nil)
        #expect(defaults.publicURL == nil)
    }

    @Test func originGenerationAndVendorIdentifier() throws {
        let configuration = try GatewayCommand.parse(["--origin-generation", "v2b", "--origin-vendor-identifier", "5e1e3f0a"]).gatewayConfiguration
        #expect(configuration.readPath.generation == .v2b)
        #expect(configuration.originVendorIdentifier == "5e1e3f0a")
        let defaults = try GatewayCommand.parse([]).gatewayConfiguration
        #expect(defaults.readPath.generation == .v1)
        #expect(defaults.originVendorIdentifier == nil)
    }

    @Test func refusesBadValues() {
        for arguments in [["--image-signing-key", "short"], ["--image-host", "a/b"], ["--image-host", "host:99999"], ["--public-url", "ftp://x"], ["--max-image-bytes", "0"], ["--tls-cert", "c.pem"], ["--tls-key", "k.pem"], ["--port", "70000"], ["--threads", "0"], ["--origin", "ftp://x"], ["--origin", "not a url"], ["--log-level", "loud"], ["--max-body-bytes", "0"], ["--origin-generation", "v3"], ["--origin-vendor-identifier", "a b"]] {
            #expect(throws: (any Error).self, "\(arguments)") { try GatewayCommand.parse(arguments) }
        }
    }
}
