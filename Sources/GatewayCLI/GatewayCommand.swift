import ArgumentParser
import DemoIdentityProvider
import DemoOrigin
import Foundation
import Gateway
import GatewayModels
import GatewayRuntime
import Logging
import Observability
import Transport

/// `gateway`: flags (or their `GATEWAY_*` environment variables) into a configuration,
/// then serve until SIGTERM or SIGINT.
struct GatewayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Open Market Gateway: a REST gateway and backend-for-frontend for mobile shopping apps.",
        discussion: """
            Every option can also be set with the environment variable named beside it; a \
            flag on the command line wins over the environment.
            """)

    @OptionGroup(title: ServerOptions.title) var server: ServerOptions
    @OptionGroup(title: TLSOptions.title) var tls: TLSOptions
    @OptionGroup(title: OriginOptions.title) var origin: OriginOptions
    @OptionGroup(title: CacheOptions.title) var cache: CacheOptions
    @OptionGroup(title: ImageOptions.title) var images: ImageOptions
    @OptionGroup(title: ReplicaOptions.title) var replicas: ReplicaOptions
    @OptionGroup(title: RateLimitOptions.title) var rateLimits: RateLimitOptions
    @OptionGroup(title: AuthOptions.title) var auth: AuthOptions
    @OptionGroup(title: AdminOptions.title) var admin: AdminOptions
    @OptionGroup(title: LogOptions.title) var logs: LogOptions
    @OptionGroup(title: TracingOptions.title) var tracing: TracingOptions

    /// The option groups, in the order `--help` shows them.
    static let groups: [any ConfigurationOptions.Type] = [
        ServerOptions.self, TLSOptions.self, OriginOptions.self, CacheOptions.self, ImageOptions.self, ReplicaOptions.self,
        RateLimitOptions.self, AuthOptions.self, AdminOptions.self, LogOptions.self, TracingOptions.self,
    ]

    /// Each group's title in `--help` (and in docs/configuration.md), by its type.
    static var groupTitles: [ObjectIdentifier: String] {
        Dictionary(uniqueKeysWithValues: groups.map { (ObjectIdentifier($0), $0.title) })
    }

    /// What no one group can check alone; each group validated its own options already.
    func validate() throws {
        if replicas.redisUrl != nil, images.imageSigningKey == nil {
            throw ValidationError("--redis-url needs --image-signing-key: every replica must sign image URLs with the same key, and a generated key is each replica's own.")
        }
        if auth.demoAuth, origin.origin != nil {
            throw ValidationError("--demo-auth runs beside the embedded demo origin: leave out --origin.")
        }
        if rateLimits.rateLimitKey == "subject", auth.authIssuer == nil, !auth.demoAuth {
            throw ValidationError("--rate-limit-key subject needs --auth-issuer: only a verified token names a user.")
        }
        if let adminPort = admin.adminPort {
            guard adminPort == 0 || adminPort != server.port else { throw ValidationError("--admin-port must differ from --port.") }
        }
    }

    /// The server settings these options describe.
    ///
    /// - Throws: `TransportError` when the TLS certificate or key cannot be loaded.
    func makeConfiguration() throws(TransportError) -> GatewayConfiguration {
        var configuration = gatewayConfiguration
        if let tlsCert = tls.tlsCert, let tlsKey = tls.tlsKey {
            // Loaded once here so a bad file stops the gateway before anything starts; the
            // server loads its own context from the same files.
            let files = TLSServerFiles(certificateFile: tlsCert, privateKeyFile: tlsKey, ticketKeyFiles: tls.ticketKeyFiles)
            _ = try TLSServerContext(files: files, offersHTTP2: false)
            configuration.tls = TLSConfiguration(
                certificateFile: tlsCert, privateKeyFile: tlsKey, ticketKeyFiles: tls.ticketKeyFiles,
                reloadInterval: tls.tlsReloadInterval > 0 ? .milliseconds(Int64(tls.tlsReloadInterval * 1000)) : nil)
        }
        return configuration
    }

    /// The settings that need no file access.
    var gatewayConfiguration: GatewayConfiguration {
        var configuration = GatewayConfiguration()
        let groups: [any ConfigurationOptions] = [server, tls, origin, cache, images, replicas, rateLimits, auth, admin, logs, tracing]
        for group in groups { group.apply(to: &configuration) }
        return configuration
    }

    func run() throws {
        BatchedLogHandler.bootstrap(level: logs.level, format: logs.format)
        defer { LogWriter.standardError.flush() }
        let logger = Logger(label: "gateway")
        let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
        metrics.reportLogWriter(.standardError)
        var demoOrigin: DemoOrigin?
        var identityProvider: DemoIdentityProvider?
        do {
            var configuration = try makeConfiguration()
            // Without --origin the gateway brings its own: the demo origin on a loopback port,
            // in the chosen generation, writing as its first vendor unless told otherwise.
            if configuration.origin.url == nil {
                var demo = DemoOriginConfiguration()
                demo.generation = configuration.origin.generation
                demo.logsRequests = self.origin.demoOriginAccessLog
                let origin = DemoOrigin(configuration: demo, logger: Logger(label: "demo-origin"))
                demoOrigin = origin
                configuration.origin.url = try origin.start().absoluteString
                if !demo.logsRequests {
                    logger.info("the embedded demo origin's access lines are off (--demo-origin-access-log logs them)")
                }
                if configuration.origin.vendorIdentifier == nil, configuration.origin.generation != .v1 {
                    configuration.origin.vendorIdentifier = demo.vendors.first?.identifier
                }
            }
            // --demo-auth: an identity provider beside the demo origin, and its vendors'
            // credentials held in memory.
            var vendorCredentials: VendorCredentialStore?
            if auth.demoAuth {
                let vendors = DemoVendor.demo.map { (claim: DemoIdentityProvider.claim(forVendorNamed: $0.name), vendor: $0) }
                let provider = DemoIdentityProvider(vendors: vendors.map { ($0.claim, $0.vendor.name) }, logger: Logger(label: "demo-identity-provider"))
                identityProvider = provider
                configuration.auth = AuthConfiguration(issuer: try provider.start(), audiences: [DemoIdentityProvider.audience])
                vendorCredentials = VendorCredentialStore(credentials: Dictionary(uniqueKeysWithValues: vendors.map {
                    ($0.claim, VendorCredential(identifier: $0.vendor.identifier, secret: $0.vendor.secret))
                }))
            }
            let routes = try GatewayApplication.originRoutes(
                configuration: configuration, metrics: metrics, logger: logger, vendorCredentials: vendorCredentials)
            let server = GatewayServer(
                configuration: configuration, router: routes.router, logger: logger, metrics: metrics, replicaListener: routes.replicaListener,
                authenticator: routes.authenticator, vendorCredentials: routes.vendorCredentials)
            try server.start()
            let admin = try GatewayApplication.adminServer(configuration: configuration, routes: routes, metrics: metrics, logger: logger)
            try admin?.start()
            if let identityProvider {
                let text = identityProvider.howTo(gateway: "http://127.0.0.1:\(server.port)", generation: configuration.origin.generation.rawValue)
                FileHandle.standardOutput.write(Data(text.utf8))
            }
            // A vendor credentials file is looked at every 10 s (or the TLS files' interval) for
            // secret volumes, which change files without a signal.
            let reloadEvery = configuration.tls?.reloadInterval ?? (routes.vendorCredentials?.path.isEmpty == false ? .seconds(10) : nil)
            let signal = ProcessSignals.wait(reloadEvery: reloadEvery) { trigger in
                server.reloadFiles(trigger)
            }
            logger.info("shutting down", metadata: ["signal": .stringConvertible(signal)])
            admin?.shutdown()
            server.shutdown()
            identityProvider?.shutdown()
            demoOrigin?.shutdown()
        } catch {
            logger.critical("cannot start", metadata: ["error": .string("\(error)")])
            identityProvider?.shutdown()
            demoOrigin?.shutdown()
            LogWriter.standardError.flush()
            throw ExitCode.failure
        }
    }
}
