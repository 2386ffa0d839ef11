import DemoOrigin
import Foundation
@testable import Gateway
import GatewayModels
@testable import GatewayRuntime
@testable import HTTPInterface
import Logging
@testable import Observability
import TestSupport

/// Several gateways in front of one demo origin, sharing one real `redis-server`, all on
/// 127.0.0.1: replicas as an operator runs them.
final class ReplicaHarness: Sendable {
    /// The Redis server (with Sentinel: the primary at the start).
    let redis: RedisTestServer
    /// What the gateways get as `--redis-url`.
    let redisURL: String
    /// With Sentinel: the primary, its replica and the sentinels.
    let sentinels: RedisSentinelGroup?
    let origin: DemoOrigin
    let originURL: URL
    let generation: OriginGeneration
    private let directory: String

    /// One running gateway.
    struct Replica: Sendable {
        let server: GatewayServer
        let routes: GatewayApplication.OriginRoutes
        /// The admin listener, when the configuration has an admin port.
        let admin: GatewayServer?
        let metrics: GatewayMetrics
        var port: Int { server.port }

        func shutdown() {
            admin?.shutdown()
            server.shutdown()
        }
    }

    private init(redis: RedisTestServer, sentinels: RedisSentinelGroup? = nil, origin: DemoOrigin, originURL: URL, generation: OriginGeneration) {
        self.redis = redis
        self.sentinels = sentinels
        redisURL = sentinels?.url ?? redis.url
        self.origin = origin
        self.originURL = originURL
        self.generation = generation
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("replicas-\(UUID().uuidString)").path
    }

    /// Starts Redis and the demo origin, runs `body`, stops both.
    static func with(generation: OriginGeneration = .v1, redisPassword: String? = nil, _ body: (ReplicaHarness) async throws -> Void) async throws {
        let redis = try RedisTestServer(password: redisPassword)
        try await with(redis: redis, sentinels: nil, generation: generation, body)
    }

    /// Starts a primary, its replica and three sentinels (``RedisSentinelGroup``) and the
    /// demo origin; the gateways get the sentinels' URL. Runs `body`, stops them all.
    static func withSentinels(_ body: (ReplicaHarness) async throws -> Void) async throws {
        let group = try RedisSentinelGroup()
        defer { group.stopAll() }
        try await with(redis: group.first, sentinels: group, generation: .v1, body)
    }

    private static func with(
        redis: RedisTestServer, sentinels: RedisSentinelGroup?, generation: OriginGeneration, _ body: (ReplicaHarness) async throws -> Void
    ) async throws {
        var demo = DemoOriginConfiguration()
        demo.generation = generation
        let origin = DemoOrigin(configuration: demo, logger: .quiet("replica-test"))
        let url = try origin.start()
        let harness = ReplicaHarness(redis: redis, sentinels: sentinels, origin: origin, originURL: url, generation: generation)
        defer {
            origin.shutdown()
            redis.stop()
            try? FileManager.default.removeItem(atPath: harness.directory)
        }
        try await body(harness)
    }

    /// The configuration every replica shares (each gets a cache directory of its own).
    func configuration() -> GatewayConfiguration {
        var configuration = GatewayConfiguration.testing(origin: originURL, threads: 2)
        configuration.origin.generation = generation
        if generation != .v1 { configuration.origin.vendorIdentifier = DemoOriginConfiguration().vendors.first?.identifier }
        configuration.images.cacheDirectory = directory + "/\(UUID().uuidString)"
        configuration.images.signingKey = "replica-test-signing-key"
        var redisConfiguration = try! RedisConfiguration(url: redisURL)
        redisConfiguration.commandTimeout = .milliseconds(250)
        configuration.redis = redisConfiguration
        return configuration
    }

    /// Starts one more gateway.
    func start(_ configure: (inout GatewayConfiguration) -> Void = { _ in }) throws -> Replica {
        var configuration = configuration()
        configure(&configuration)
        let metrics = GatewayMetrics(presets: GatewayMetrics.gatewayPresets)
        let routes = try GatewayApplication.originRoutes(configuration: configuration, metrics: metrics)
        let server = GatewayServer(
            configuration: configuration, router: routes.router, logger: .quiet("replica"), metrics: metrics, replicaListener: routes.replicaListener)
        try server.start()
        let admin = try GatewayApplication.adminServer(configuration: configuration, routes: routes, metrics: metrics, logger: .quiet("admin"))
        try admin?.start()
        return Replica(server: server, routes: routes, admin: admin, metrics: metrics)
    }

    /// Waits (up to `seconds`) until `condition` holds; returns whether it did.
    func wait(seconds: Double = 5, until condition: () throws -> Bool) async throws -> Bool {
        let end = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        while ContinuousClock.now < end {
            if try condition() { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return try condition()
    }
}
