@testable import HTTPInterface
import Testing
@testable import Gateway
import GatewayModels
import GatewaySupport

@Suite struct IdempotencyStoreTests {
    private let start = ContinuousClock.now
    private let created = GatewayResponse(status: 201, headers: ["Location": "/v1/products/9"])

    private func claim(_ store: IdempotencyStore, _ key: String, _ fingerprint: String, at offset: Duration = .zero) -> String {
        switch store.claim(key, fingerprint: fingerprint, now: start + offset, waiter: { _ in }) {
        case .first: "first"
        case .replay(let response): "replay \(response.status)"
        case .mismatch: "mismatch"
        case .waiting: "waiting"
        }
    }

    @Test func replaysWithinRetentionAndRefusesOtherRequests() {
        let store = IdempotencyStore(retention: .seconds(60))
        #expect(claim(store, "k", "a") == "first")
        #expect(claim(store, "k", "a") == "waiting")
        #expect(claim(store, "k", "b") == "mismatch")
        store.finish("k", response: created, now: start)
        #expect(claim(store, "k", "a", at: .seconds(59)) == "replay 201")
        #expect(claim(store, "k", "b", at: .seconds(59)) == "mismatch")
        #expect(claim(store, "k", "b", at: .seconds(60)) == "first")
    }

    @Test func waitersGetTheFirstResponseAndReleaseFreesTheKey() {
        let store = IdempotencyStore()
        let received = Locked<[Int]>([])
        #expect(claim(store, "k", "a") == "first")
        for _ in 0..<3 {
            if case .waiting = store.claim("k", fingerprint: "a", now: start, waiter: { response in received.withLock { $0.append(response.status) } }) {
            } else {
                Issue.record("expected to wait")
            }
        }
        store.release("k", response: GatewayResponse(status: 502))
        #expect(received.withLock { $0 } == [502, 502, 502])
        #expect(claim(store, "k", "z") == "first")
    }

    @Test func runningKeysAreNeverForgottenAndReleasedKeysLeaveNoTrace() {
        let store = IdempotencyStore(limit: 3)
        #expect(claim(store, "running", "x") == "first")
        for index in 0..<5 {
            #expect(claim(store, "k\(index)", "x") == "first")
            store.finish("k\(index)", response: created, now: start)
        }
        // The running key outlived five newer keys; the two newest finished ones remain.
        #expect(claim(store, "k3", "other") == "mismatch")
        for _ in 0..<50 {
            #expect(claim(store, "retried", "x") == "first")
            store.release("retried", response: GatewayResponse(status: 502))
        }
        // Fifty claims and releases of one key took one place, not fifty.
        #expect(claim(store, "k4", "other") == "mismatch")
        #expect(claim(store, "running", "x") == "waiting")
    }

    @Test func theOldestKeysAreForgottenBeyondTheLimit() {
        let store = IdempotencyStore(limit: 2)
        for key in ["a", "b", "c"] {
            #expect(claim(store, key, "x") == "first")
            store.finish(key, response: created, now: start)
        }
        #expect(claim(store, "a", "other") == "first")
        #expect(claim(store, "c", "other") == "mismatch")
    }
}
