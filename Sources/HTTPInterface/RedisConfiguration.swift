import Foundation

/// Where the replicas' shared Redis is and how long the gateway waits for it.
///
/// Made from `--redis-url redis://[user:password@]host:port[/db]`. The password is a secret:
/// `description` never shows it, and nothing logs the URL as given.
public struct RedisConfiguration: Sendable, Equatable, CustomStringConvertible {
    /// A host name (resolved off the loops, again at every reconnect) or an IP address.
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
    /// TLS to Redis (`rediss://`); nil for plain TCP (`redis://`).
    public var tls: TLS?
    /// How many replicas must acknowledge an `Idempotency-Key` record (`WAIT`) before it
    /// counts (`--redis-wait-replicas`); nil: 1 while the primary reports a connected replica
    /// (its `ROLE`), else 0.
    public var waitReplicas: Int?

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

    /// Why a Redis URL was refused. The message never repeats the password.
    public struct URLError: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Reads `redis://[user:password@]host[:port][/db]` (port 6379 and database 0 when left
    /// out; an IPv6 address in brackets; user and password percent-decoded), or the same
    /// with `rediss://` for TLS (``tls`` set, with no files: the system's CAs).
    ///
    /// - Throws: `URLError` for another scheme, a missing host, a port outside 1–65535, a
    ///   database that is not a number from 0 to 65535, or a query or fragment.
    public init(url: String) throws(URLError) {
        guard let schemeEnd = url.range(of: "://") else {
            throw URLError(description: "--redis-url must look like redis://[user:password@]host:port[/db].")
        }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard scheme == "redis" || scheme == "rediss" else {
            throw URLError(description: "--redis-url must start with redis:// or rediss:// (TLS) (got \(scheme)://).")
        }
        var rest = url[schemeEnd.upperBound...]
        guard !rest.contains("?"), !rest.contains("#") else {
            throw URLError(description: "--redis-url takes no query or fragment.")
        }
        var database = 0
        if let slash = rest.firstIndex(of: "/") {
            let path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
            if !path.isEmpty {
                guard path.utf8.count <= 5, path.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let number = Int(path), number <= 65535 else {
                    throw URLError(description: "--redis-url: the database after the host must be a number from 0 to 65535.")
                }
                database = number
            }
        }
        var username: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let user: Substring
            let secret: Substring?
            if let colon = userInfo.firstIndex(of: ":") {
                user = userInfo[..<colon]
                secret = userInfo[userInfo.index(after: colon)...]
            } else {
                // `redis://secret@host`: as redis-cli reads it, a lone user-info is the password.
                user = ""
                secret = userInfo
            }
            guard let decodedUser = user.removingPercentEncoding, let decodedSecret = (secret ?? "").removingPercentEncoding else {
                throw URLError(description: "--redis-url: the user or password is not valid percent-encoding.")
            }
            username = decodedUser.isEmpty ? nil : decodedUser
            password = decodedSecret.isEmpty ? nil : decodedSecret
        }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw URLError(description: "--redis-url: an IPv6 host needs its closing ].") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw URLError(description: "--redis-url: unexpected text after the host.") }
                portText = after.dropFirst()
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) else {
            throw URLError(description: "--redis-url needs a host, like redis://redis.internal:6379.")
        }
        var port = 6379
        if let portText {
            guard portText.utf8.count <= 5, !portText.isEmpty, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let number = Int(portText), (1...65535).contains(number)
            else { throw URLError(description: "--redis-url: the port must be a number from 1 to 65535.") }
            port = number
        }
        self.init(host: String(host), port: port, username: username, password: password, database: database)
        if scheme == "rediss" { tls = TLS() }
    }

    /// The URL with the password left out, for logs and errors.
    public var description: String {
        let user = username.map { "\($0)" } ?? ""
        let secret = password == nil ? "" : ":<redacted>"
        let userInfo = user.isEmpty && secret.isEmpty ? "" : "\(user)\(secret)@"
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(tls == nil ? "redis" : "rediss")://\(userInfo)\(shownHost):\(port)/\(database)"
    }
}
