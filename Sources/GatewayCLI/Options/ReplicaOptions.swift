import ArgumentParser
import Foundation
import Gateway
import HTTPInterface

/// Several replicas sharing one Redis.
struct ReplicaOptions: ConfigurationOptions {
    static let title = "Replicas"
    static let secrets = ["redis-url", "redis-sentinel-password"]

    @Option(help: "Redis shared by the replicas, redis://[user:password@]host:port[/db], or rediss://… for TLS: Idempotency-Key records survive restarts and are seen by every replica. With Redis Sentinel: redis-sentinel://[user:password@]host:26379,host2:26379/master-name[/db] (rediss-sentinel://… for TLS to the sentinels and the servers); the gateway follows the primary they name. Off by default (one process, everything in memory). Needs --image-signing-key. The password is never logged. (env: GATEWAY_REDIS_URL)")
    var redisUrl: String?

    @Option(help: "With redis-sentinel://: the password the sentinels ask for (AUTH), when they have their own (the URL's is the Redis servers'). Never logged. (env: GATEWAY_REDIS_SENTINEL_PASSWORD)")
    var redisSentinelPassword: String?

    @Option(help: "With rediss://: the CA certificates (PEM) that sign Redis's certificate, instead of the system's. (env: GATEWAY_REDIS_CA_FILE)")
    var redisCaFile: String?

    @Option(help: "With rediss://: a client certificate (PEM) for Redis servers that ask for one; needs --redis-key. (env: GATEWAY_REDIS_CERT)")
    var redisCert: String?

    @Option(help: "With rediss://: the client certificate's private key (PEM). (env: GATEWAY_REDIS_KEY)")
    var redisKey: String?

    @Option(help: "Seconds a Redis command may take before the gateway gives up on it. (env: GATEWAY_REDIS_TIMEOUT)")
    var redisTimeout: Double = 0.25

    @Option(help: "Replicas of the Redis primary that must acknowledge an Idempotency-Key record (WAIT) before a keyed create is sent and before it is answered; a claim not acknowledged in time is released and answered 503. Default: 1 while the primary reports a connected replica, else 0. (env: GATEWAY_REDIS_WAIT_REPLICAS)")
    var redisWaitReplicas: Int?

    @Option(help: "Seconds a connection to Redis may take to be usable: name resolution, TCP, the TLS handshake and Redis's answer to the set-up commands. (env: GATEWAY_REDIS_CONNECT_TIMEOUT)")
    var redisConnectTimeout: Double = 1

    func validate() throws {
        var secure = false
        var sentinel = false
        if let redisUrl {
            do {
                let redis = try RedisConfiguration(url: redisUrl)
                secure = redis.tls != nil
                sentinel = redis.sentinel != nil
            } catch {
                throw ValidationError(error.description)
            }
        }
        if redisSentinelPassword != nil, !sentinel {
            throw ValidationError("--redis-sentinel-password needs a redis-sentinel:// or rediss-sentinel:// --redis-url.")
        }
        let files = [("--redis-ca-file", redisCaFile), ("--redis-cert", redisCert), ("--redis-key", redisKey)]
        for (flag, path) in files {
            guard let path else { continue }
            guard secure else { throw ValidationError("\(flag) needs a rediss:// --redis-url (TLS).") }
            guard FileManager.default.isReadableFile(atPath: path) else { throw ValidationError("\(flag) \(path) cannot be read.") }
        }
        if let redisWaitReplicas, !(0...16).contains(redisWaitReplicas) {
            throw ValidationError("--redis-wait-replicas must be from 0 to 16.")
        }
        guard (redisCert == nil) == (redisKey == nil) else { throw ValidationError("--redis-cert and --redis-key: set both, or neither.") }
        guard redisTimeout > 0, redisTimeout <= 10 else { throw ValidationError("--redis-timeout must be more than 0 and at most 10 seconds.") }
        guard redisConnectTimeout >= 0.05, redisConnectTimeout <= 30 else {
            throw ValidationError("--redis-connect-timeout must be from 0.05 to 30 seconds.")
        }
    }

    func apply(to configuration: inout GatewayConfiguration) {
        if let redisUrl, var redis = try? RedisConfiguration(url: redisUrl) {
            redis.commandTimeout = .milliseconds(Int64(redisTimeout * 1000))
            redis.connectTimeout = .milliseconds(Int64(redisConnectTimeout * 1000))
            redis.waitReplicas = redisWaitReplicas
            redis.sentinel?.password = redisSentinelPassword
            if redis.tls != nil { redis.tls = RedisConfiguration.TLS(caFile: redisCaFile, certificateFile: redisCert, keyFile: redisKey) }
            configuration.redis = redis
        }
    }
}
