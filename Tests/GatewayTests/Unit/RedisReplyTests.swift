import CHiredis
import Foundation
@testable import Gateway
@testable import HTTPInterface
@testable import RedisClient
import Testing

/// The Redis reply handling, without a server: raw RESP2 bytes read by hiredis' own reader and
/// copied out by ``RedisConnection/value(of:)`` as the connection does; then how the shared
/// tier and the idempotency records read each answer of their scripts.
@Suite struct RedisReplyTests {
    /// RESP2 bytes through hiredis' reader, then the connection's copy.
    static func read(_ resp: String) throws -> RedisReply {
        let reader = try #require(redisReaderCreate())
        defer { redisReaderFree(reader) }
        let bytes = Array(resp.utf8)
        #expect(bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { redisReaderFeed(reader, $0.baseAddress, $0.count) }
        } == REDIS_OK)
        var reply: UnsafeMutableRawPointer?
        #expect(redisReaderGetReply(reader, &reply) == REDIS_OK)
        let object = try #require(reply)
        defer { freeReplyObject(object) }
        return RedisConnection.value(of: object.assumingMemoryBound(to: redisReply.self))
    }

    @Test func everyReplyTypeIsCopied() throws {
        #expect(try Self.read("+OK\r\n") == .status("OK"))
        #expect(try Self.read("-NOSCRIPT No matching script\r\n") == .error("NOSCRIPT No matching script"))
        #expect(try Self.read(":-42\r\n") == .integer(-42))
        #expect(try Self.read("$5\r\na\r\n\0b\r\n") == .bytes([0x61, 0x0d, 0x0a, 0x00, 0x62]))
        #expect(try Self.read("$0\r\n\r\n") == .bytes([]))
        #expect(try Self.read("$-1\r\n") == .null)
        #expect(try Self.read("*-1\r\n") == .null)
        #expect(try Self.read("*0\r\n") == .array([]))
        #expect(try Self.read("*3\r\n$1\r\n7\r\n$-1\r\n*1\r\n:1\r\n") == .array([.bytes([0x37]), .null, .array([.integer(1)])]))
        #expect(try Self.read("$2\r\nOK\r\n").text == "OK")
        #expect(try Self.read(":1\r\n").bytes == nil)
    }

    // MARK: The shared tier

    static let now = ContinuousClock.now
    static let wall = Date(timeIntervalSince1970: 1_800_000_000)

    /// A stored page `age` old (written at `wall - age`), fresh for 30 s.
    static func record(age: Duration) -> [UInt8] {
        let page = CachedPage(
            status: 200, contentType: "application/json", identity: Array(#"{"items":[]}"#.utf8), gzip: nil, storedAt: now - age,
            timeToLive: .seconds(30), fields: [])
        return SharedPageRecord.encode(page, hasNextPage: false, now: now, wallNow: wall)
    }

    static func reading(_ reply: RedisReply) -> (SharedPages.Lookup, String) {
        let (lookup, event) = SharedPages.reading(.success(reply), staleIfError: .seconds(60), now: now, wallNow: wall)
        return (lookup, event)
    }

    @Test func aFreshEntryIsAHit() {
        guard case (.fresh(let entry), "hit") = Self.reading(.array([.bytes(Array("12".utf8)), .bytes(Self.record(age: .seconds(29)))])) else {
            Issue.record("not a hit")
            return
        }
        #expect(Self.now - entry.page.storedAt == .seconds(29))
    }

    /// Past its freshness, an entry is the stale-if-error fallback for 60 s more; then nothing.
    @Test func anOldEntryIsAMissWithItsStaleFallback() {
        guard case (.miss("12", let stale?, nil), "stale") = Self.reading(.array([.bytes(Array("12".utf8)), .bytes(Self.record(age: .seconds(89)))]))
        else {
            Issue.record("not a miss with a stale entry")
            return
        }
        #expect(Self.now - stale.page.storedAt == .seconds(89))
        guard case (.miss("12", nil, nil), "stale") = Self.reading(.array([.bytes(Array("12".utf8)), .bytes(Self.record(age: .seconds(90)))])) else {
            Issue.record("an entry past the stale window was kept")
            return
        }
    }

    /// A backoff marker another replica left: read with the time it has left; a marker that
    /// is malformed or has no time left is none.
    @Test func backoffMarkers() {
        let version = RedisReply.bytes(Array("7".utf8))
        guard case (.miss("7", nil, let backoff?), "miss") = Self.reading(.array([version, .null, .bytes(Array("502:503".utf8)), .integer(800)])) else {
            Issue.record("no backoff read")
            return
        }
        #expect(backoff == SharedBackoff(status: 502, originStatus: 503, left: .milliseconds(800)))
        #expect(backoff.error.detail == "The origin answered 503.")
        #expect(SharedBackoff(marker: "504:0", millisecondsLeft: .integer(10))?.error.status == 504)
        #expect(SharedBackoff(marker: "502:0", millisecondsLeft: .integer(10))?.originStatus == nil)
        #expect(SharedBackoff(marker: "502:503", millisecondsLeft: .integer(-2)) == nil)
        #expect(SharedBackoff(marker: "200:0", millisecondsLeft: .integer(10)) == nil)
        #expect(SharedBackoff(marker: "junk", millisecondsLeft: .integer(10)) == nil)
        #expect(SharedBackoff(marker: nil, millisecondsLeft: .integer(10)) == nil)
        #expect(SharedBackoff(status: 504, originStatus: nil, left: .seconds(1)).marker == "504:0")
        guard case (.miss("7", nil, nil), "miss") = Self.reading(.array([version, .null, .null, .integer(-2)])) else {
            Issue.record("a backoff read from nothing")
            return
        }
    }

    /// No entry, or one this gateway cannot read, is a miss under the version read; a reply
    /// of another shape, an error or a timeout means the tier is unavailable.
    @Test func missesAndFailures() {
        guard case (.miss("0", nil, nil), "miss") = Self.reading(.array([.bytes(Array("0".utf8)), .null])),
            case (.miss("3", nil, nil), "miss") = Self.reading(.array([.bytes(Array("3".utf8)), .bytes(Array("OMP9junk".utf8))])),
            case (.unavailable, "error") = Self.reading(.array([.bytes(Array("3".utf8))])),
            case (.unavailable, "error") = Self.reading(.array([.null, .null])),
            case (.unavailable, "error") = Self.reading(.status("OK")),
            case (.unavailable, "error") = SharedPages.reading(.failure(.timedOut), staleIfError: .seconds(60)),
            case (.unavailable, "error") = SharedPages.reading(.failure(.refused("NOSCRIPT")), staleIfError: .seconds(60))
        else {
            Issue.record("a reply was read wrongly")
            return
        }
    }

    /// Only a nil `SET NX` reply means another replica fetches; anything else, fetch.
    @Test func theLockSaysWhoFetches() {
        #expect(SharedPages.shouldFetch(.success(.status("OK"))))
        #expect(!SharedPages.shouldFetch(.success(.null)))
        #expect(SharedPages.shouldFetch(.failure(.timedOut)))
        #expect(SharedPages.shouldFetch(.failure(.unavailable)))
        // The recovery slots' lock: 1 fetches holding a slot, 0 waits for the other replica,
        // -1 defers, anything else (Redis cannot say) fetches holding none.
        #expect(SharedPages.slotLock(.success(.integer(1))) == .mine)
        #expect(SharedPages.slotLock(.success(.integer(0))) == .held)
        #expect(SharedPages.slotLock(.success(.integer(-1))) == .full)
        #expect(SharedPages.slotLock(.success(.error("ERR Error running script"))) == .unsure)
        #expect(SharedPages.slotLock(.success(.null)) == .unsure)
        #expect(SharedPages.slotLock(.failure(.timedOut)) == .unsure)
    }

    /// A fetch's entry and lock release are sent again while Redis cannot be reached (a
    /// failover), before the lock would end; never after an error reply.
    @Test func aFetchsEndIsRetriedOnlyWhileRedisCannotBeReachedAndTheLockLasts() {
        let now = Self.now
        for failure in [RedisFailure.unavailable, .timedOut, .connectionLost] {
            #expect(SharedPages.retries(failure, until: now + .seconds(5), now: now))
            #expect(SharedPages.retries(failure, until: now + .milliseconds(250), now: now) == false)
        }
        #expect(SharedPages.retries(.refused("OOM command not allowed"), until: now + .seconds(5), now: now) == false)
    }

    /// Waiting for another replica's fetch: found, ask again while the lock is held and the
    /// bound allows, else give up and go to the origin.
    @Test func pollingForAnotherReplicasFetch() throws {
        let deadline = Self.now + .milliseconds(100)
        func poll(_ entry: RedisReply, locked: Bool, at now: ContinuousClock.Instant = Self.now) -> SharedPages.Poll {
            SharedPages.polled(.success(.array([entry, .integer(locked ? 1 : 0)])), until: deadline, now: now, wallNow: Self.wall)
        }
        let fresh = try #require(SharedPageRecord.decode(Self.record(age: .seconds(1)), now: Self.now, wallNow: Self.wall))
        #expect(poll(.bytes(Self.record(age: .seconds(1))), locked: true) == .found(fresh))
        #expect(poll(.bytes(Self.record(age: .seconds(1))), locked: false) == .found(fresh))
        #expect(poll(.null, locked: true) == .again)
        #expect(poll(.bytes(Self.record(age: .seconds(31))), locked: true) == .again)
        #expect(poll(.null, locked: false) == .giveUp)
        #expect(poll(.null, locked: true, at: deadline - .milliseconds(20)) == .giveUp)
        #expect(poll(.null, locked: true, at: deadline - .milliseconds(21)) == .again)
        #expect(SharedPages.polled(.failure(.connectionLost), until: deadline, now: Self.now) == .giveUp)
        #expect(SharedPages.polled(.success(.null), until: deadline, now: Self.now) == .giveUp)
        // The lock gone with a backoff marker: answer as that fetch did; with the lock held,
        // the marker of an earlier failure does not stop the wait.
        let marker: [RedisReply] = [.bytes(Array("504:0".utf8)), .integer(900)]
        #expect(SharedPages.polled(.success(.array([.null, .integer(0)] + marker)), until: deadline, now: Self.now)
            == .backedOff(SharedBackoff(status: 504, originStatus: nil, left: .milliseconds(900))))
        #expect(SharedPages.polled(.success(.array([.null, .integer(1)] + marker)), until: deadline, now: Self.now) == .again)
    }

    @Test func messagesOnTheChannel() {
        #expect(SharedPages.message(Array("lists".utf8)) == .invalidate(productID: nil))
        #expect(SharedPages.message(Array("p:128".utf8)) == .invalidate(productID: 128))
        #expect(SharedPages.message(Array(RedisChannel.heartbeatMessage.utf8)) == .heartbeat)
        for other in ["p:", "p:x", "p:128x", "P:128", "list", ""] {
            #expect(SharedPages.message(Array(other.utf8)) == nil, "\(other)")
        }
    }

    // MARK: Idempotency records

    @Test func claimAnswers() {
        let fingerprint = String(repeating: "a", count: 64)
        let response = IdempotencyRecord.StoredResponse(status: 201, fields: [("Location", "/v1/products/7")], body: Array("{}".utf8))
        #expect(SharedIdempotency.answer(.bytes(Array("claimed".utf8))) == .claimed)
        #expect(SharedIdempotency.answer(.bytes(Array("running".utf8))) == .running)
        #expect(SharedIdempotency.answer(.bytes(Array("mismatch".utf8))) == .mismatch)
        #expect(SharedIdempotency.answer(.bytes(IdempotencyRecord.finished(fingerprint: fingerprint, response: response))) == .finished(response))
        // A running record is never replayed; nor is anything this gateway did not write.
        #expect(SharedIdempotency.answer(.bytes(IdempotencyRecord.running(fingerprint: fingerprint, token: "t"))) == .unreadable)
        #expect(SharedIdempotency.answer(.bytes(Array("D".utf8))) == .unreadable)
        #expect(SharedIdempotency.answer(.integer(1)) == .unreadable)
        #expect(SharedIdempotency.answer(.null) == .unreadable)
    }
}
