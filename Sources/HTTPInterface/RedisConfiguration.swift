import Foundation

/// Where the replicas' shared Redis is and how long the gateway waits for it.
///
/// Made from `--redis-url redis://[user:password@]host:port[/db]` (one server), or
/// `redis-sentinel://[user:password@]host:26379,host2:26379/master-name[/db]` (the primary
/// that Redis Sentinel names). Passwords are secrets: `description` never shows them, and
/// nothing logs the URL as given.
public struct RedisConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// A host name (resolved off the loops, again at every reconnect) or an IP address. With
    /// ``sentinel``: the first sentinel's (the primary is the one the sentinels name).
    public var host: String
    public var port: Int
    /// The ACL user for `AUTH user password`; nil sends `AUTH password` (the default user).
    public var username: String?
    /// Never logged.
    public var password: String?
    /// The logical database (`SELECT`), 0 by default.
    public var database: Int
    /// How long one command may take before its answer is given up (a late answer is dropped).
    public var commandTimeout: Duration = .milliseconds(250)
    /// How long a connection attempt (resolve, connect and the TLS handshake) may take.
    public var connectTimeout: Duration = .seconds(1)
    /// TLS to Redis (`rediss://`; `rediss-sentinel://`: to the sentinels too); nil for plain
    /// TCP (`redis://`, `redis-sentinel://`).
    public var tls: TLS?
    /// How many replicas must acknowledge an `Idempotency-Key` record (`WAIT`) before it
    /// counts (`--redis-wait-replicas`); nil: 1 while the primary reports a connected replica
    /// (its `ROLE`), else 0.
    public var waitReplicas: Int?
    /// With `redis-sentinel://` or `rediss-sentinel://`: the sentinels that name the primary.
    public var sentinel: Sentinel?

    /// Redis Sentinel: the gateway asks the sentinels, in turn, which server is the primary
    /// of `masterName`, checks the answer with `ROLE`, and follows `+switch-master`.
    public struct Sentinel: Sendable, Equatable {
        /// The sentinels, asked in this order (port 26379 when the URL leaves it out).
        public var nodes: [RedisNode]
        public var masterName: String
        /// `--redis-sentinel-password`: `AUTH` on the sentinels (the URL's user and password
        /// are the data servers'). Never logged.
        public var password: String?

        public init(nodes: [RedisNode], masterName: String, password: String? = nil) {
            self.nodes = nodes
            self.masterName = masterName
            self.password = password
        }
    }

    /// How the gateway speaks TLS to Redis: TLS 1.2 or later, the server's certificate
    /// checked against the system's CAs or `caFile`, and its name (or address) against the
    /// URL's host; a client certificate when the server asks for one.
    public struct TLS: Sendable, Equatable {
        /// `--redis-ca-file` (PEM): the CAs trusted instead of the system's.
        public var caFile: String?
        /// `--redis-cert` and `--redis-key` (PEM): presented when the server asks.
        public var certificateFile: String?
        public var keyFile: String?

        public init(caFile: String? = nil, certificateFile: String? = nil, keyFile: String? = nil) {
            self.caFile = caFile
            self.certificateFile = certificateFile
            self.keyFile = keyFile
        }
    }

    public init(host: String, port: Int = 6379, username: String? = nil, password: String? = nil, database: Int = 0) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.database = database
    }

    /// The URL with the password left out, for logs and errors.
    public var description: String {
        let user = username.map { "\($0)" } ?? ""
        let secret = password == nil ? "" : ":<redacted>"
        let userInfo = user.isEmpty && secret.isEmpty ? "" : "\(user)\(secret)@"
        guard let sentinel else {
            return "\(tls == nil ? "redis" : "rediss")://\(userInfo)\(RedisNode(host: host, port: port))/\(database)"
        }
        let nodes = sentinel.nodes.map(\.description).joined(separator: ",")
        return "\(tls == nil ? "redis" : "rediss")-sentinel://\(userInfo)\(nodes)/\(sentinel.masterName)/\(database)"
    }
}

/// One Redis server (or sentinel): a host name or IP address, and a port.
public struct RedisNode: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `host:port`, an IPv6 address in brackets.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
