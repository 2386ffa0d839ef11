@testable import Gateway
@testable import HTTPInterface
import Testing

@Suite struct RedisConfigurationTests {
    @Test func readsEveryPart() throws {
        let full = try RedisConfiguration(url: "redis://app:p%40ss%3Aword@redis.internal:6380/3")
        #expect(full.host == "redis.internal")
        #expect(full.port == 6380)
        #expect(full.username == "app")
        #expect(full.password == "p@ss:word")
        #expect(full.database == 3)
        #expect(full.description == "redis://app:<redacted>@redis.internal:6380/3")
    }

    @Test func defaultsAndShortForms() throws {
        let bare = try RedisConfiguration(url: "redis://10.0.0.7")
        #expect(bare == RedisConfiguration(host: "10.0.0.7", port: 6379, username: nil, password: nil, database: 0))
        #expect(bare.description == "redis://10.0.0.7:6379/0")
        // A lone user-info is the password (as redis-cli reads it), and so is `:password`.
        #expect(try RedisConfiguration(url: "redis://secret@h:1/").password == "secret")
        #expect(try RedisConfiguration(url: "redis://:secret@h:1").username == nil)
        #expect(try RedisConfiguration(url: "redis://:secret@h:1").password == "secret")
        let v6 = try RedisConfiguration(url: "redis://[::1]:7000/0")
        #expect(v6.host == "::1")
        #expect(v6.port == 7000)
        #expect(v6.description == "redis://[::1]:7000/0")
        #expect(v6.tls == nil)
    }

    @Test func redissMeansTLSWithTheSystemsCAs() throws {
        let secure = try RedisConfiguration(url: "rediss://app:s%40cret@cache.example.net:6380/2")
        #expect(secure.tls == RedisConfiguration.TLS())
        #expect(secure.host == "cache.example.net")
        #expect(secure.port == 6380)
        #expect(secure.database == 2)
        #expect(secure.password == "s@cret")
        #expect(secure.description == "rediss://app:<redacted>@cache.example.net:6380/2")
        #expect(try RedisConfiguration(url: "REDISS://h").description == "rediss://h:6379/0")
    }

    @Test func sentinelURLsNameTheSentinelsAndThePrimary() throws {
        let full = try RedisConfiguration(url: "redis-sentinel://app:p%40ss@s1.internal:26380,10.0.0.2,[::1]:26381/mymaster/4")
        #expect(full.sentinel == RedisConfiguration.Sentinel(
            nodes: [RedisNode(host: "s1.internal", port: 26380), RedisNode(host: "10.0.0.2", port: 26379), RedisNode(host: "::1", port: 26381)],
            masterName: "mymaster"))
        #expect(full.username == "app")
        #expect(full.password == "p@ss")
        #expect(full.database == 4)
        #expect(full.tls == nil)
        #expect(full.description == "redis-sentinel://app:<redacted>@s1.internal:26380,10.0.0.2:26379,[::1]:26381/mymaster/4")
        let bare = try RedisConfiguration(url: "rediss-sentinel://sentinel/cache")
        #expect(bare.sentinel?.nodes == [RedisNode(host: "sentinel", port: 26379)])
        #expect(bare.database == 0)
        #expect(bare.tls == RedisConfiguration.TLS())
        #expect(bare.description == "rediss-sentinel://sentinel:26379/cache/0")
        #expect(try RedisConfiguration(url: "redis://h").sentinel == nil)
    }

    @Test(arguments: [
        ("http://h:6379", "--redis-url must start with redis://, rediss:// (TLS), redis-sentinel:// or rediss-sentinel:// (got http://)."),
        ("h:6379", "--redis-url must look like redis://[user:password@]host:port[/db] or redis-sentinel://[user:password@]host:26379,host2:26379/master-name[/db]."),
        ("redis://h:6379/0/1", "--redis-url: unexpected text after the database."),
        ("redis-sentinel://s1:26379", "--redis-url: a sentinel URL names the primary after the hosts, like redis-sentinel://sentinel.internal:26379/mymaster."),
        ("redis-sentinel://s1:26379/", "--redis-url: a sentinel URL names the primary after the hosts, like redis-sentinel://sentinel.internal:26379/mymaster."),
        ("redis-sentinel://s1,,s2/m", "--redis-url needs a host, like redis://redis.internal:6379."),
        ("redis-sentinel://s1:0/m", "--redis-url: the port must be a number from 1 to 65535."),
        ("redis-sentinel://s1/m/x", "--redis-url: the database after the master's name must be a number from 0 to 65535."),
        ("redis://:pw@:6379", "--redis-url needs a host, like redis://redis.internal:6379."),
        ("redis://h:0", "--redis-url: the port must be a number from 1 to 65535."),
        ("redis://h:65536", "--redis-url: the port must be a number from 1 to 65535."),
        ("redis://h:", "--redis-url: the port must be a number from 1 to 65535."),
        ("redis://h:6379/x", "--redis-url: the database after the host must be a number from 0 to 65535."),
        ("redis://h:6379/0?timeout=1", "--redis-url takes no query or fragment."),
        ("redis://[::1:6379", "--redis-url: an IPv6 host needs its closing ]."),
    ])
    func refusesWithAMessage(_ url: String, _ message: String) {
        #expect(throws: RedisConfiguration.URLError(description: message)) { try RedisConfiguration(url: url) }
    }

    /// No error message repeats the password.
    @Test func errorsNeverShowThePassword() {
        for url in ["redis://u:hunter2-secret@h:99999", "redis://u:hunter2-secret@h:1/zz", "redis://u:hunter2-secret@:1", "redis://u:hunter2-secret@h:1?x",
            "redis-sentinel://u:hunter2-secret@s1", "redis-sentinel://u:hunter2-secret@s1,/m"] {
            do {
                _ = try RedisConfiguration(url: url)
                Issue.record("\(url) was accepted")
            } catch {
                #expect(!error.description.contains("hunter2"))
            }
        }
    }
}
