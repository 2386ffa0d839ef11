import BodyCompression
import Testing
import TestSupport
@testable import Gateway

@Suite struct GzipTests {
    @Test func roundTripsAndWritesAGzipHeader() throws {
        let input = Array(String(repeating: "{\"title\":\"Open Market\",\"price\":16.9}", count: 200).utf8)
        let compressed = Gzip.compress(input)
        #expect(Array(compressed.prefix(3)) == [0x1F, 0x8B, 0x08])
        #expect(compressed.count < input.count / 10)
        #expect(try Gzip.decompress(compressed, maxBytes: 1 << 20) == input)
    }

    @Test func roundTripsEmptyAndBinaryInput() throws {
        #expect(try Gzip.decompress(Gzip.compress([]), maxBytes: 10) == [])
        var generator = SeededGenerator(seed: 7)
        let random = generator.bytes(100_000)
        #expect(try Gzip.decompress(Gzip.compress(random, level: 1), maxBytes: 1 << 20) == random)
    }

    @Test func poolReuseKeepsStreamsIndependent() throws {
        for index in 0..<40 {
            let input = Array("body number \(index) ".utf8) + [UInt8](repeating: UInt8(index), count: index * 100)
            #expect(try Gzip.decompress(Gzip.compress(input, level: index % 2 == 0 ? 6 : 1), maxBytes: 1 << 20) == input)
        }
    }

    @Test func refusesCorruptTruncatedAndOversizedInput() {
        let compressed = Gzip.compress(Array(repeating: UInt8(ascii: "a"), count: 10_000))
        #expect(throws: GzipError.truncated) { try Gzip.decompress(Array(compressed.dropLast(12)), maxBytes: 1 << 20) }
        #expect(throws: GzipError.corrupt) { try Gzip.decompress([0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF], maxBytes: 100) }
        #expect(throws: GzipError.corrupt) { try Gzip.decompress(compressed + [1, 2, 3], maxBytes: 1 << 20) }
        #expect(throws: GzipError.tooLarge(limit: 9_999)) { try Gzip.decompress(compressed, maxBytes: 9_999) }
    }
}
