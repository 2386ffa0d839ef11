@testable import Gateway
import HTTPCodec
import Testing
@testable import Transport

/// `ConnectionInputPool`: one loop's spare read buffers and decoders. Pure: no sockets.
@Suite struct ConnectionInputPoolTests {
    @Test func anInputGoesBackAndIsLentAgainAsItWas() {
        var pool = ConnectionInputPool(limits: RequestLimits())
        let input = pool.lend()
        #expect(input.bytes.count == ConnectionInputPool.bufferSize)
        input.start = 3
        input.end = 3
        pool.giveBack(input)
        #expect(pool.spareCount == 1)
        let again = pool.lend()
        #expect(again === input, "the same object, not a new allocation")
        #expect(again.start == 0)
        #expect(again.end == 0)
        #expect(pool.spareCount == 0)
    }

    /// An input that grew for a large request, or whose decoder is inside a message, is
    /// freed, not kept; spares stop at the bound.
    @Test func onlyReusableInputsAreKeptUpToTheBound() {
        var pool = ConnectionInputPool(limits: RequestLimits())
        let grown = ConnectionInput(limits: RequestLimits())
        grown.bytes.append(contentsOf: repeatElement(0, count: ConnectionInputPool.bufferSize))
        pool.giveBack(grown)
        #expect(pool.spareCount == 0)

        let midMessage = ConnectionInput(limits: RequestLimits())
        let partial = Array("GET / HTTP/1.1\r\nHo".utf8)
        midMessage.bytes.replaceSubrange(0..<partial.count, with: partial)
        let result = midMessage.bytes.withUnsafeMutableBytes { midMessage.decoder.decode(UnsafeMutableRawBufferPointer(rebasing: $0[0..<partial.count])) }
        guard case .needMore = result else {
            Issue.record("a partial head decoded")
            return
        }
        pool.giveBack(midMessage)
        #expect(pool.spareCount == 0)

        for _ in 0..<(ConnectionInputPool.maxSpares + 5) {
            pool.giveBack(ConnectionInput(limits: RequestLimits()))
        }
        #expect(pool.spareCount == ConnectionInputPool.maxSpares)
    }
}
