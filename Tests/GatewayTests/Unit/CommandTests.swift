import Foundation
import GatewayModels
import Testing
@testable import Gateway
@testable import GatewayCLI
import GatewaySupport
import HTTPInterface

@Suite struct CommandTests {
    @Test func environmentFillsOptionsTheCommandLineLeftOut() throws {
        let merged = try EnvironmentOptions.merge(
            arguments: ["--port", "9000", "--threads=3"],
            environment: ["GATEWAY_PORT": "1", "GATEWAY_THREADS": "7", "GATEWAY_MAX_BODY_BYTES": "2048", "GATEWAY_LOG_LEVEL": "debug", "OTHER": "x"])
        #expect(merged == ["--port", "9000", "--threads=3", "--max-body-bytes", "2048", "--log-level", "debug"])
    }

    /// A secret may come from the file `GATEWAY_…_FILE` names (one trailing line end off);
    /// set both ways, or from a missing or empty file, it is an error that names the variable.
    @Test func secretsComeFromFiles() throws {
        let files: [String: String] = ["/run/secrets/admin": "admin-token-from-file\n", "/run/secrets/empty": "\n", "/run/secrets/redis": "redis://:pw@redis:6379\r\n"]
        let read: (String) throws -> Data = { path in
            guard let text = files[path] else { throw CocoaError(.fileNoSuchFile) }
            return Data(text.utf8)
        }
        let merged = try EnvironmentOptions.merge(
            arguments: [], environment: ["GATEWAY_ADMIN_TOKEN_FILE": "/run/secrets/admin", "GATEWAY_REDIS_URL_FILE": "/run/secrets/redis"],
            readFile: read)
        #expect(merged == ["--redis-url", "redis://:pw@redis:6379", "--admin-token", "admin-token-from-file"])
        // The command line still wins, and the file is not read then.
        #expect(try EnvironmentOptions.merge(
            arguments: ["--admin-token", "x"], environment: ["GATEWAY_ADMIN_TOKEN_FILE": "/missing"], readFile: read) == ["--admin-token", "x"])
        let problems: [[String: String]] = [
            ["GATEWAY_ADMIN_TOKEN": "a", "GATEWAY_ADMIN_TOKEN_FILE": "/run/secrets/admin"], ["GATEWAY_IMAGE_SIGNING_KEY_FILE": "/missing"],
            ["GATEWAY_ORIGIN_VENDOR_IDENTIFIER_FILE": "/run/secrets/empty"], ["GATEWAY_METRICS_ON_ADMIN": "maybe"],
        ]
        let messages = problems.map { environment -> String in
            do {
                _ = try EnvironmentOptions.merge(arguments: [], environment: environment, readFile: read)
                return "accepted"
            } catch {
                return "\(error)"
            }
        }
        #expect(messages[0] == "GATEWAY_ADMIN_TOKEN and GATEWAY_ADMIN_TOKEN_FILE are both set; set one.")
        #expect(messages[1].hasPrefix("GATEWAY_IMAGE_SIGNING_KEY_FILE: cannot read /missing: "))
        #expect(messages[2] == "GATEWAY_ORIGIN_VENDOR_IDENTIFIER_FILE: /run/secrets/empty is empty.")
        #expect(messages[3] == "GATEWAY_METRICS_ON_ADMIN must be true or false.")
        #expect(try EnvironmentOptions.merge(arguments: [], environment: ["GATEWAY_METRICS_ON_ADMIN": "true"]) == ["--metrics-on-admin"])
    }

    @Test func rateLimitAndAdminOptionsBecomeTheConfiguration() throws {
        let command = try GatewayCommand.parse([
            "--rate-limit-reads", "600/m", "--rate-limit-images", "20/s", "--rate-limit-burst", "5", "--trusted-proxies",
            "10.0.0.0/8, 2001:db8::/32", "--rate-limit-key-header", "X-Client-Key", "--admin-port", "9901", "--admin-token",
            "0123456789abcdef-admin", "--metrics-on-admin",
        ])
        let configuration = command.gatewayConfiguration
        #expect(configuration.rateLimits.reads == RateRule(quota: 600, windowSeconds: 60, burst: 5))
        #expect(configuration.rateLimits.writes == nil)
        #expect(configuration.rateLimits.images == RateRule(quota: 20, windowSeconds: 1, burst: 5))
        #expect(configuration.rateLimits.trustedProxies == AddressRanges(parsing: "10.0.0.0/8,2001:db8::/32"))
        #expect(configuration.rateLimits.keyHeader == "X-Client-Key")
        #expect(configuration.admin.port == 9901)
        #expect(configuration.admin.host == "127.0.0.1")
        #expect(configuration.admin.servesMetrics)
        for (arguments, message) in [
            (["--rate-limit-reads", "600/d"], "--rate-limit-reads must be N/s, N/m or N/h"),
            (["--trusted-proxies", "10.0.0.1/8"], "--trusted-proxies must be"),
            (["--rate-limit-key-header", "X-Client-Key"], "--rate-limit-key-header needs --trusted-proxies"),
            (["--admin-port", "9901"], "--admin-port needs an admin token"),
            (["--admin-port", "9901", "--admin-token", "short"], "The admin token must be at least 16 characters."),
            (["--metrics-on-admin"], "--metrics-on-admin needs --admin-port."),
            (["--tls-ticket-key-file", "/run/secrets/ticket"], "--tls-ticket-key-file and --tls-reload-interval need --tls-cert and --tls-key."),
            (["--tls-reload-interval", "5"], "--tls-ticket-key-file and --tls-reload-interval need --tls-cert and --tls-key."),
            (["--tls-cert", "c.pem", "--tls-key", "k.pem", "--tls-reload-interval=-1"], "--tls-reload-interval must be 0 to 86400 seconds."),
        ] {
            #expect(throws: (any Error).self) { try GatewayCommand.parse(arguments) }
            do {
                _ = try GatewayCommand.parse(arguments)
            } catch {
                #expect(GatewayCommand.message(for: error).contains(message), "\(arguments)")
            }
        }
    }

    @Test func everyOptionHasAnEnvironmentVariable() throws {
        #expect(EnvironmentOptions.variable(for: "max-body-bytes") == "GATEWAY_MAX_BODY_BYTES")
        let help = GatewayCommand.helpMessage()
        for name in EnvironmentOptions.names {
            #expect(help.contains("--\(name)"), "\(name)")
            #expect(help.contains(EnvironmentOptions.variable(for: name)), "\(name)")
        }
        // And the other way: every option the help lists is read from the environment.
        let listed = Set(help.matches(of: /--([a-z][a-z0-9-]*)/).map { String($0.1) }).subtracting(["help"])
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
        #expect(configuration.origin.url == "https://origin.example")
        #expect(configuration.maxBodyBytes == 1000)
        #expect(configuration.maxHeaderBytes == 4096)
        #expect(configuration.idleTimeout == .milliseconds(2500))
        #expect(configuration.shutdownGrace == .seconds(1))
        #expect(configuration.compression.minimumBytes == 10)
        #expect(configuration.listenShared == false)
        #expect(try GatewayCommand.parse(["--listen-shared"]).gatewayConfiguration.listenShared)
    }

    @Test func redisTLSOptionsBecomeTheConfiguration() throws {
        let certificate = try TestCertificate(subjectAltNames: ["DNS:redis.test"])
        let key = "--image-signing-key"
        let signing = String(repeating: "k", count: 32)
        let plain = try GatewayCommand.parse(["--redis-url", "redis://redis.test:6379", key, signing]).gatewayConfiguration
        #expect(plain.redis?.tls == nil)
        #expect(plain.redis?.connectTimeout == .seconds(1))
        #expect(plain.redis?.commandTimeout == .milliseconds(250))
        let system = try GatewayCommand.parse([
            "--redis-url", "rediss://redis.test:6380", key, signing, "--redis-timeout", "0.5", "--redis-connect-timeout", "2.5",
        ]).gatewayConfiguration
        #expect(system.redis?.tls == RedisConfiguration.TLS())
        #expect(system.redis?.connectTimeout == .milliseconds(2500))
        #expect(system.redis?.commandTimeout == .milliseconds(500))
        #expect(system.redis?.waitReplicas == nil)
        #expect(try GatewayCommand.parse(["--redis-url", "redis://r", key, signing, "--redis-wait-replicas", "2"]).gatewayConfiguration.redis?.waitReplicas == 2)
        let files = try GatewayCommand.parse([
            "--redis-url", "rediss://redis.test", key, signing, "--redis-ca-file", certificate.certificateFile,
            "--redis-cert", certificate.certificateFile, "--redis-key", certificate.keyFile,
        ]).gatewayConfiguration
        #expect(files.redis?.tls == RedisConfiguration.TLS(caFile: certificate.certificateFile, certificateFile: certificate.certificateFile, keyFile: certificate.keyFile))
        let sentinel = try GatewayCommand.parse([
            "--redis-url", "rediss-sentinel://:data-pw@s1.test,s2.test:26380/cache/2", key, signing, "--redis-sentinel-password", "sentinel-pw",
            "--redis-ca-file", certificate.certificateFile,
        ]).gatewayConfiguration
        #expect(sentinel.redis?.sentinel == RedisConfiguration.Sentinel(
            nodes: [RedisNode(host: "s1.test", port: 26379), RedisNode(host: "s2.test", port: 26380)], masterName: "cache", password: "sentinel-pw"))
        #expect(sentinel.redis?.password == "data-pw")
        #expect(sentinel.redis?.database == 2)
        #expect(sentinel.redis?.tls == RedisConfiguration.TLS(caFile: certificate.certificateFile))
        let refusals: [([String], String)] = [
            (["--redis-url", "redis://redis.test", key, signing, "--redis-ca-file", certificate.certificateFile], "--redis-ca-file needs a rediss:// --redis-url (TLS)."),
            (["--redis-ca-file", certificate.certificateFile], "--redis-ca-file needs a rediss:// --redis-url (TLS)."),
            (["--redis-url", "rediss://redis.test", key, signing, "--redis-ca-file", "/nonexistent/ca.pem"], "--redis-ca-file /nonexistent/ca.pem cannot be read."),
            (["--redis-url", "rediss://redis.test", key, signing, "--redis-cert", certificate.certificateFile], "--redis-cert and --redis-key: set both, or neither."),
            (["--redis-url", "rediss://redis.test", key, signing, "--redis-key", certificate.keyFile], "--redis-cert and --redis-key: set both, or neither."),
            (["--redis-url", "redis://redis.test", key, signing, "--redis-connect-timeout", "0"], "--redis-connect-timeout must be from 0.05 to 30 seconds."),
            (["--redis-url", "redis://redis.test", key, signing, "--redis-wait-replicas", "17"], "--redis-wait-replicas must be from 0 to 16."),
            (["--redis-url", "redis://redis.test", key, signing, "--redis-sentinel-password", "pw"], "--redis-sentinel-password needs a redis-sentinel:// or rediss-sentinel:// --redis-url."),
        ]
        for (arguments, message) in refusals {
            do {
                _ = try GatewayCommand.parse(arguments)
                Issue.record("accepted \(arguments)")
            } catch {
                #expect(GatewayCommand.message(for: error) == message, "\(arguments)")
            }
        }
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
        // Tokens of the old, readable layout are refused unless a deployment turns them on.
        #expect(defaults.legacyTokens == false)
        #expect(try GatewayCommand.parse(["--legacy-image-tokens", "true"]).gatewayConfiguration.images.legacyTokens == true)
    }

    @Test func originGenerationAndVendorIdentifier() throws {
        let configuration = try GatewayCommand.parse(["--origin-generation", "v2b", "--origin-vendor-identifier", "5e1e3f0a"]).gatewayConfiguration
        #expect(configuration.origin.generation == .v2b)
        #expect(configuration.origin.vendorIdentifier == "5e1e3f0a")
        let defaults = try GatewayCommand.parse([]).gatewayConfiguration
        #expect(defaults.origin.generation == .v1)
        #expect(defaults.origin.vendorIdentifier == nil)
    }

    @Test func authOptionsBecomeTheConfiguration() throws {
        let command = try GatewayCommand.parse([
            "--auth-issuer", "https://id.example.com/", "--auth-audience", "api,account", "--auth-audience", "third",
            "--auth-algorithms", "ES256, EdDSA", "--auth-clock-skew", "30", "--auth-required", "all", "--auth-write-scope", "products:write",
        ])
        let auth = try #require(command.gatewayConfiguration.auth)
        #expect(auth.issuer == "https://id.example.com/")
        #expect(auth.audiences == ["api", "account", "third"])
        #expect(auth.algorithms == [.es256, .edDSA])
        #expect(auth.clockSkew == .seconds(30))
        #expect(auth.required == .all)
        #expect(auth.writeScope == "products:write")
        #expect(auth.keySource == .discovery(issuer: "https://id.example.com/"))
        #expect(auth.vendorCredentialsFile == nil && auth.vendorClaim == "vendor")
        #expect(try GatewayCommand.parse([]).gatewayConfiguration.auth == nil)
        let vendors = try GatewayCommand.parse([
            "--auth-issuer", "https://id.example.com/", "--auth-audience", "api", "--vendor-credentials-file", "/run/secrets/vendors.json",
            "--auth-vendor-claim", "org_id",
        ]).gatewayConfiguration.auth
        #expect(vendors?.vendorCredentialsFile == "/run/secrets/vendors.json" && vendors?.vendorClaim == "org_id")
    }

    /// Each refused at start, with the reason.
    @Test func refusesUnsafeAuthSettings() {
        let issuer = ["--auth-issuer", "https://id.example.com/"]
        let cases: [([String], String)] = [
            (issuer + ["--auth-audience", "api", "--auth-algorithms", "RS256,none"], "--auth-algorithms: \"none\" is not a signature: tokens must be signed."),
            (issuer + ["--auth-audience", "api", "--auth-algorithms", "HS256"], "--auth-algorithms: HS256 is an HMAC algorithm, whose key would have to be the key set's public bytes: only RS, PS, ES and EdDSA algorithms."),
            (issuer, "--auth-audience is required with --auth-issuer: the API's audience, so that ID tokens and tokens for other APIs are refused."),
            (["--auth-audience", "api"], "The --auth-* options need --auth-issuer."),
            (["--vendor-credentials-file", "/run/secrets/vendors.json"], "--vendor-credentials-file needs --auth-issuer: only a verified token names the vendor to write as."),
            (["--auth-vendor-claim", "org"], "The --auth-* options need --auth-issuer."),
            (["--demo-auth", "--origin", "http://127.0.0.1:9"], "--demo-auth runs beside the embedded demo origin: leave out --origin."),
            (["--demo-auth", "--auth-issuer", "https://id.example.com/"], "--demo-auth brings its own identity provider and vendor credentials: leave out the --auth-* options and --vendor-credentials-file."),
            (["--rate-limit-key", "subject"], "--rate-limit-key subject needs --auth-issuer: only a verified token names a user."),
            (["--rate-limit-key", "user"], "--rate-limit-key must be address or subject."),
            (["--auth-issuer", "http://id.example.com/", "--auth-audience", "api"], "--auth-issuer http://id.example.com/ must be https (http only on 127.0.0.1, ::1 or localhost)."),
            (issuer + ["--auth-audience", "api", "--auth-required", "reads"], "--auth-required must be writes or all."),
            (issuer + ["--auth-audience", "api", "--auth-jwks-file", "/nonexistent/jwks.json"], "--auth-jwks-file /nonexistent/jwks.json cannot be read."),
        ]
        for (arguments, message) in cases {
            #expect(GatewayCommand.message(for: Self.parseError(arguments)) == message, "\(arguments)")
        }
    }

    private static func parseError(_ arguments: [String]) -> any Error {
        do {
            _ = try GatewayCommand.parse(arguments)
            return CancellationError()
        } catch {
            return error
        }
    }

    @Test func refusesBadValues() {
        for arguments in [["--image-signing-key", "short"], ["--image-host", "a/b"], ["--image-host", "host:99999"], ["--public-url", "ftp://x"], ["--max-image-bytes", "0"], ["--tls-cert", "c.pem"], ["--tls-key", "k.pem"], ["--port", "70000"], ["--threads", "0"], ["--origin", "ftp://x"], ["--origin", "not a url"], ["--log-level", "loud"], ["--max-body-bytes", "0"], ["--origin-generation", "v3"], ["--origin-vendor-identifier", "a b"]] {
            #expect(throws: (any Error).self, "\(arguments)") { try GatewayCommand.parse(arguments) }
        }
    }
}
