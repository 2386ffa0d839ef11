import HTTPCodec
import Testing

/// `RequestDecoder.isBetweenMessages`: when a server may lend the decoder to another
/// connection.
@Suite struct BetweenMessagesTests {
    @Test func theDecoderIsBetweenMessagesOnlyBeforeAMessageBegins() {
        var decoder = RequestDecoder()
        #expect(decoder.isBetweenMessages)
        var partial = Array("GET / HTTP/1.1\r\nHo".utf8)
        guard case .needMore = partial.withUnsafeMutableBytes({ decoder.decode($0) }) else {
            Issue.record("a partial head decoded")
            return
        }
        #expect(!decoder.isBetweenMessages)
        partial += Array("st: x\r\n\r\n".utf8)
        guard case .complete = partial.withUnsafeMutableBytes({ decoder.decode($0) }) else {
            Issue.record("a whole head did not decode")
            return
        }
        #expect(decoder.isBetweenMessages)
        // Leading empty lines are part of the next message.
        var blank = Array("\r\n".utf8)
        _ = blank.withUnsafeMutableBytes { decoder.decode($0) }
        #expect(!decoder.isBetweenMessages)
    }
}
