@testable import Gateway
@testable import HTTPInterface
import Testing

@Suite struct IdempotencyRecordTests {
    static let fingerprint = IdempotencyRecord.fingerprint(path: "/v1/products", vendorIdentifier: nil, body: Array("{}".utf8))

    @Test func finishedRecordsRoundTrip() {
        let response = IdempotencyRecord.StoredResponse(
            status: 201, fields: [("Content-Type", "application/json"), ("Location", "/v1/products/128"), ("Cache-Control", "no-store")],
            body: Array("{\"id\":128}\n\n\u{0}binary".utf8))
        let bytes = IdempotencyRecord.finished(fingerprint: Self.fingerprint, response: response)
        #expect(bytes.prefix(1) == [UInt8(ascii: "D")])
        #expect(IdempotencyRecord.parse(bytes) == .finished(fingerprint: Self.fingerprint, response: response))
    }

    @Test func runningRecordsRoundTrip() {
        let bytes = IdempotencyRecord.running(fingerprint: Self.fingerprint, token: "00ff00ff00ff00ff00ff00ff00ff00ff")
        #expect(IdempotencyRecord.parse(bytes) == .running(fingerprint: Self.fingerprint, token: "00ff00ff00ff00ff00ff00ff00ff00ff"))
    }

    @Test func fieldsWithLineBreaksAreLeftOut() {
        let response = IdempotencyRecord.StoredResponse(status: 200, fields: [("X-Bad", "a\r\nInjected: yes"), ("X-Good", "b")], body: [])
        let parsed = IdempotencyRecord.parse(IdempotencyRecord.finished(fingerprint: Self.fingerprint, response: response))
        #expect(parsed == .finished(fingerprint: Self.fingerprint, response: .init(status: 200, fields: [("X-Good", "b")], body: [])))
    }

    @Test(arguments: [
        "", "D", "X" + String(repeating: "a", count: 64), "D" + String(repeating: "a", count: 64) + "20\n\n",
        "D" + String(repeating: "a", count: 64) + "201\nno-colon\n\n", "D" + String(repeating: "a", count: 64) + "999\n\n",
        "D" + String(repeating: "a", count: 64) + "201\nA: b\n",
    ])
    func refusesWhatItDidNotWrite(_ text: String) {
        #expect(IdempotencyRecord.parse(Array(text.utf8)) == nil)
    }

    /// Scopes differ by route, each credential and the key; parts cannot run into each other.
    @Test func scopesSeparateClientsAndKeys() {
        let base = IdempotencyRecord.scope(route: "POST /v1/products", password: "pw", vendorIdentifier: "v", key: "k")
        #expect(base.count == 64)
        #expect(base == IdempotencyRecord.scope(route: "POST /v1/products", password: "pw", vendorIdentifier: "v", key: "k"))
        for other in [
            IdempotencyRecord.scope(route: "POST /v1/products", password: "pw2", vendorIdentifier: "v", key: "k"),
            IdempotencyRecord.scope(route: "POST /v1/products", password: "pw", vendorIdentifier: "w", key: "k"),
            IdempotencyRecord.scope(route: "POST /v1/products", password: "pw", vendorIdentifier: nil, key: "k"),
            IdempotencyRecord.scope(route: "POST /v1/products", password: "pw", vendorIdentifier: "v", key: "k2"),
            IdempotencyRecord.scope(route: "POST /v1/products", password: "pwv", vendorIdentifier: "", key: "k"),
        ] {
            #expect(other != base)
        }
    }

    @Test func theBreakerOpensAfterFailuresInARowAndClosesOnASuccess() {
        let health = RedisHealth()
        let start = ContinuousClock.now
        for _ in 0..<(RedisHealth.failureThreshold - 1) { health.recordFailure(now: start) }
        #expect(health.allows(now: start))
        health.recordFailure(now: start)
        #expect(!health.allows(now: start))
        #expect(!health.allows(now: start + RedisHealth.openFor - .milliseconds(1)))
        #expect(health.allows(now: start + RedisHealth.openFor))
        // Half-open: one more failure opens it again at once.
        health.recordFailure(now: start + RedisHealth.openFor)
        #expect(!health.allows(now: start + RedisHealth.openFor))
        health.recordSuccess()
        #expect(health.allows(now: start + RedisHealth.openFor))
        for _ in 0..<(RedisHealth.failureThreshold - 1) { health.recordFailure(now: start) }
        #expect(health.allows(now: start))
    }
}
