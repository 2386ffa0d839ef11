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

    @Test(arguments: [
        ("http://h:6379", "--redis-url must start with redis:// or rediss:// (TLS) (got http://)."),
        ("h:6379", "--redis-url must look like redis://[user:password@]host:port[/db]."),
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
        for url in ["redis://u:hunter2-secret@h:99999", "redis://u:hunter2-secret@h:1/zz", "redis://u:hunter2-secret@:1", "redis://u:hunter2-secret@h:1?x"] {
            do {
                _ = try RedisConfiguration(url: url)
                Issue.record("\(url) was accepted")
            } catch {
                #expect(!error.description.contains("hunter2"))
            }
        }
    }
}
