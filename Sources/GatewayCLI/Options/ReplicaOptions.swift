import ArgumentParser
import Gateway
import HTTPInterface

/// Several replicas sharing one Redis.
struct ReplicaOptions: ConfigurationOptions {
    static let title = "Replicas"
    static let secrets = ["redis-url"]

    @Option(help: "Redis shared by the replicas, redis://[user:password@]host:port[/db]: Idempotency-Key records survive restarts and are seen by every replica. Off by default (one process, everything in memory). Needs --image-signing-key. The password is never logged; rediss:// (TLS) is not supported. (env: GATEWAY_REDIS_URL)")
    var redisUrl: String?

    @Option(help: "Seconds a Redis command may take before the gateway gives up on it. (env: GATEWAY_REDIS_TIMEOUT)")
    var redisTimeout: Double = 0.25

    func validate() throws {
        if let redisUrl {
            do {
                _ = try RedisConfiguration(url: redisUrl)
            } catch {
                throw ValidationError(error.description)
            }
        }
        guard redisTimeout > 0, redisTimeout <= 10 else { throw ValidationError("--redis-timeout must be more than 0 and at most 10 seconds.") }
    }

    func apply(to configuration: inout GatewayConfiguration) {
        if let redisUrl, var redis = try? RedisConfiguration(url: redisUrl) {
            redis.commandTimeout = .milliseconds(Int64(redisTimeout * 1000))
            configuration.redis = redis
        }
    }
}
