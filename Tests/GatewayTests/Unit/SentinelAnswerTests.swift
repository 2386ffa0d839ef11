@testable import HTTPInterface
@testable import RedisClient
import Testing
@testable import Transport

/// What the gateway reads from a sentinel, without sockets.
@Suite struct SentinelAnswerTests {
    @Test func readsTheAddressOfThePrimary() {
        #expect(SentinelQuery.answer(.array([.bytes(Array("10.0.0.12".utf8)), .bytes(Array("6380".utf8))]))
            == .primary(RedisNode(host: "10.0.0.12", port: 6380)))
        #expect(SentinelQuery.answer(.array([.bytes(Array("::1".utf8)), .bytes(Array("7000".utf8))])) == .primary(RedisNode(host: "::1", port: 7000)))
    }

    @Test func aNameTheSentinelDoesNotKnowIsUnknown() {
        #expect(SentinelQuery.answer(.null) == .unknown)
        #expect(SentinelQuery.answer(.array([])) == .unknown)
    }

    @Test(arguments: [
        (RedisReply.array([.bytes(Array("10.0.0.12".utf8)), .bytes(Array("0".utf8))]), "it named no usable address"),
        (.array([.bytes(Array("10.0.0.12".utf8)), .bytes(Array("65536".utf8))]), "it named no usable address"),
        (.array([.bytes([]), .bytes(Array("6379".utf8))]), "it named no usable address"),
        (.array([.bytes(Array("h".utf8)), .bytes(Array("x".utf8))]), "it named no usable address"),
        (.error("NOAUTH Authentication required."), "it refused: NOAUTH Authentication required."),
        (.status("OK"), "it answered what is not an address"),
        (.array([.bytes(Array("h".utf8))]), "it answered what is not an address"),
    ])
    func anythingElseIsAFailureThatSaysWhy(_ reply: RedisReply, _ why: String) {
        #expect(SentinelQuery.answer(reply) == .failed(why))
    }

    @Test func theSubscriptionMovesToTheNextSentinelWhenOneFails() async throws {
        let nodes = [RedisNode(host: "s1", port: 26379), RedisNode(host: "s2", port: 26379), RedisNode(host: "s3", port: 26380)]
        let rotation = SentinelRotation(nodes)
        let loop = try EventLoop(name: "rotation-test")
        func next(after failed: RedisNode?) -> RedisNode? {
            nonisolated(unsafe) var answer: RedisNode?
            rotation.node(after: failed, on: loop) { answer = $0 }
            return answer
        }
        #expect(next(after: nil) == nodes[0])
        #expect(next(after: nodes[0]) == nodes[1])
        #expect(next(after: nodes[2]) == nodes[0])
        #expect(next(after: RedisNode(host: "elsewhere", port: 1)) == nodes[0])
        #expect(rotation.describe(nodes[1]) == "sentinel s2:26379")
    }
}
