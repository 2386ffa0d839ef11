import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Redis as operators make it highly available: a primary, a replica of it and three
/// sentinels watching them (quorum 2, `down-after-milliseconds` 1000), all Debian's
/// `redis-server` on free loopback ports, for one test.
public final class RedisSentinelGroup: @unchecked Sendable {
    public static let masterName = "omg"
    /// The servers as started: `first` was the primary at the start, `second` its replica.
    public let first: RedisTestServer
    public let second: RedisTestServer
    public let sentinels: [RedisSentinelTestServer]

    /// Starts the five and waits until every sentinel sees the replica and the other two
    /// sentinels (before that, a failover aborts: `-failover-abort-no-good-slave`).
    /// - Throws: when a server does not start, or the sentinels do not see each other within
    ///   30 s.
    public init(sentinelPassword: String? = nil) throws {
        let primary = try RedisTestServer()
        first = primary
        second = try RedisTestServer(replicaOf: primary.port)
        sentinels = try (0..<3).map { _ in try RedisSentinelTestServer(watching: primary.port, quorum: 2, password: sentinelPassword) }
        let end = Date().addingTimeInterval(30)
        while Date() < end {
            if try sentinels.allSatisfy({ try $0.seesReplicaAndPeers() }) { return }
            usleep(100_000)
        }
        throw RedisTestError(description: "the sentinels did not see the replica and each other within 30 s")
    }

    deinit { stopAll() }

    public func stopAll() {
        for sentinel in sentinels { sentinel.stop() }
        first.stop()
        second.stop()
    }

    /// `redis-sentinel://127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3/omg`.
    public var url: String {
        "redis-sentinel://" + sentinels.map { "127.0.0.1:\($0.port)" }.joined(separator: ",") + "/\(Self.masterName)"
    }

    /// The primary's port as the first sentinel that answers names it.
    public func primaryPort() -> Int? {
        for sentinel in sentinels {
            guard let answer = try? sentinel.cli("SENTINEL", "get-master-addr-by-name", Self.masterName) else { continue }
            let lines = answer.split(separator: "\n")
            if lines.count == 2, let port = Int(lines[1]) { return port }
        }
        return nil
    }
}

/// One `redis-server --sentinel` on a free loopback port, with a configuration file of its
/// own (a sentinel rewrites it).
public final class RedisSentinelTestServer: @unchecked Sendable {
    /// The port it listens on (with `tls`, for TLS only).
    public let port: Int
    private let password: String?
    private let tls: RedisTestServer.TLS?
    private let configurationFile: String
    private var process: Process?

    /// Starts a sentinel watching the primary on `primaryPort` as ``RedisSentinelGroup/masterName``.
    /// With `tls`: it speaks only TLS (to its clients and to the servers it watches), with
    /// that certificate.
    public init(watching primaryPort: Int, quorum: Int, password: String? = nil, tls: RedisTestServer.TLS? = nil) throws {
        port = try freeLoopbackPort()
        self.password = password
        self.tls = tls
        configurationFile = FileManager.default.temporaryDirectory.appendingPathComponent("sentinel-\(UUID().uuidString).conf").path
        var lines = [
            "bind 127.0.0.1", "daemonize no", "loglevel warning",
            "sentinel monitor \(RedisSentinelGroup.masterName) 127.0.0.1 \(primaryPort) \(quorum)",
            "sentinel down-after-milliseconds \(RedisSentinelGroup.masterName) 1000",
            "sentinel failover-timeout \(RedisSentinelGroup.masterName) 5000",
        ]
        if let password { lines += ["requirepass \(password)", "sentinel sentinel-pass \(password)"] }
        if let tls {
            lines += [
                "port 0", "tls-port \(port)", "tls-cert-file \(tls.certificateFile)", "tls-key-file \(tls.keyFile)",
                "tls-ca-cert-file \(tls.caFile)", "tls-auth-clients no", "tls-replication yes",
            ]
        } else {
            lines.append("port \(port)")
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: configurationFile, atomically: true, encoding: .utf8)
        let made = Process()
        made.executableURL = URL(fileURLWithPath: RedisTestServer.serverPath)
        made.arguments = [configurationFile, "--sentinel"]
        made.standardOutput = FileHandle.nullDevice
        made.standardError = FileHandle.nullDevice
        try made.run()
        process = made
        if RedisTestServer.waitForPong({ try? cli("PING") }) { return }
        stop()
        throw RedisTestError(description: "redis-server --sentinel on port \(port) did not answer PING within 5 s")
    }

    deinit { stop() }

    public func stop() {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
        try? FileManager.default.removeItem(atPath: configurationFile)
    }

    /// Whether this sentinel knows one replica and two other sentinels.
    func seesReplicaAndPeers() throws -> Bool {
        let replicas = try cli("SENTINEL", "replicas", RedisSentinelGroup.masterName).split(separator: "\n").filter { $0 == "name" }.count
        let peers = try cli("SENTINEL", "sentinels", RedisSentinelGroup.masterName).split(separator: "\n").filter { $0 == "name" }.count
        return replicas == 1 && peers == 2
    }

    /// Runs `redis-cli` against this sentinel; its output, trimmed.
    @discardableResult
    public func cli(_ arguments: String...) throws -> String {
        try RedisTestServer.cli(port: port, password: password, options: tls.map { ["--tls", "--cacert", $0.caFile] } ?? [], arguments)
    }
}
