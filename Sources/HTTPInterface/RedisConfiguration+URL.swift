import Foundation

extension RedisConfiguration {
    /// Why a Redis URL was refused. The message never repeats the password.
    public struct URLError: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    static let urlShape = "redis://[user:password@]host:port[/db] or redis-sentinel://[user:password@]host:26379,host2:26379/master-name[/db]"

    /// Reads `--redis-url`:
    /// - `redis://[user:password@]host[:port][/db]` (port 6379 and database 0 when left out);
    /// - `redis-sentinel://[user:password@]host[:port],host2[:port]…/master-name[/db]`
    ///   (sentinels on port 26379 when left out; ``sentinel`` set, `host` and `port` the
    ///   first sentinel's);
    /// - `rediss://` and `rediss-sentinel://`: the same over TLS (``tls`` set, with no files:
    ///   the system's CAs).
    ///
    /// An IPv6 address goes in brackets; user and password are percent-decoded and are the
    /// data servers' (the sentinels' own password is `--redis-sentinel-password`).
    ///
    /// - Throws: `URLError` for another scheme, a missing host, a port outside 1–65535, a
    ///   database that is not a number from 0 to 65535, a sentinel URL without its master's
    ///   name, or a query or fragment.
    public init(url: String) throws(URLError) {
        guard let schemeEnd = url.range(of: "://") else {
            throw URLError(description: "--redis-url must look like \(Self.urlShape).")
        }
        let scheme = url[..<schemeEnd.lowerBound].lowercased()
        guard ["redis", "rediss", "redis-sentinel", "rediss-sentinel"].contains(scheme) else {
            throw URLError(description: "--redis-url must start with redis://, rediss:// (TLS), redis-sentinel:// or rediss-sentinel:// (got \(scheme)://).")
        }
        let sentinel = scheme.hasSuffix("-sentinel")
        var rest = url[schemeEnd.upperBound...]
        guard !rest.contains("?"), !rest.contains("#") else {
            throw URLError(description: "--redis-url takes no query or fragment.")
        }
        var path: [Substring] = []
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...].split(separator: "/", omittingEmptySubsequences: false)
            rest = rest[..<slash]
        }
        var masterName: String?
        if sentinel {
            guard let name = path.first, !name.isEmpty,
                name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "%") })
            else { throw URLError(description: "--redis-url: a sentinel URL names the primary after the hosts, like redis-sentinel://sentinel.internal:26379/mymaster.") }
            masterName = String(name)
            path.removeFirst()
        }
        var database = 0
        if path.count > 1 { throw URLError(description: "--redis-url: unexpected text after the database.") }
        if let number = path.first, !number.isEmpty {
            guard number.utf8.count <= 5, number.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(number), value <= 65535 else {
                throw URLError(description: "--redis-url: the database after the \(sentinel ? "master's name" : "host") must be a number from 0 to 65535.")
            }
            database = value
        }
        var username: String?
        var password: String?
        if let at = rest.lastIndex(of: "@") {
            (username, password) = try Self.userInfo(rest[..<at])
            rest = rest[rest.index(after: at)...]
        }
        let defaultPort = sentinel ? 26379 : 6379
        let hosts = sentinel ? rest.split(separator: ",", omittingEmptySubsequences: false) : [rest]
        var nodes: [RedisNode] = []
        for host in hosts { nodes.append(try Self.node(host, defaultPort: defaultPort)) }
        self.init(host: nodes[0].host, port: nodes[0].port, username: username, password: password, database: database)
        if let masterName { self.sentinel = Sentinel(nodes: nodes, masterName: masterName) }
        if scheme.hasPrefix("rediss") { tls = TLS() }
    }

    /// `user:password`, or a lone password (as redis-cli reads `redis://secret@host`).
    private static func userInfo(_ text: Substring) throws(URLError) -> (String?, String?) {
        let user: Substring
        let secret: Substring?
        if let colon = text.firstIndex(of: ":") {
            user = text[..<colon]
            secret = text[text.index(after: colon)...]
        } else {
            user = ""
            secret = text
        }
        guard let decodedUser = user.removingPercentEncoding, let decodedSecret = (secret ?? "").removingPercentEncoding else {
            throw URLError(description: "--redis-url: the user or password is not valid percent-encoding.")
        }
        return (decodedUser.isEmpty ? nil : decodedUser, decodedSecret.isEmpty ? nil : decodedSecret)
    }

    /// `host[:port]` or `[v6address][:port]`.
    private static func node(_ text: Substring, defaultPort: Int) throws(URLError) -> RedisNode {
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw URLError(description: "--redis-url: an IPv6 host needs its closing ].") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw URLError(description: "--redis-url: unexpected text after the host.") }
                portText = after.dropFirst()
            }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = text
        }
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: ",") }) else {
            throw URLError(description: "--redis-url needs a host, like redis://redis.internal:6379.")
        }
        var port = defaultPort
        if let portText {
            guard portText.utf8.count <= 5, !portText.isEmpty, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                let number = Int(portText), (1...65535).contains(number)
            else { throw URLError(description: "--redis-url: the port must be a number from 1 to 65535.") }
            port = number
        }
        return RedisNode(host: String(host), port: port)
    }
}
