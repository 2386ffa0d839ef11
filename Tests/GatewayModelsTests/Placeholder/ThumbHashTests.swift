import Testing
@testable import GatewayModels

/// ThumbHash against values thumbhash-rs 0.1.0 (the oracle of Tests/Differential/thumbhash_compare.py,
/// which compares hundreds of generated images) gave for the same pixels.
@Suite struct ThumbHashTests {
    static func solid(_ width: Int, _ height: Int, _ pixel: [UInt8]) -> [UInt8] {
        Array((0..<(width * height)).map { _ in pixel }.joined())
    }

    /// Integer patterns with every channel varying in both directions (no flat channel, no
    /// factor exactly halfway between two steps, so every implementation must agree).
    static func pattern(_ width: Int, _ height: Int, alpha: Bool) -> [UInt8] {
        var rgba: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                rgba += [UInt8((x * x + 3 * y) % 256), UInt8((x * y + 50) % 256), UInt8((7 * x + y * y) % 256),
                         alpha ? UInt8((x * 13 + y * 29) % 256) : 255]
            }
        }
        return rgba
    }

    @Test func imagesHashAsTheOracleHashesThem() throws {
        #expect(try ThumbHash.encode(width: 9, height: 31, rgba: Self.pattern(9, 31, alpha: false))
            == [87, 183, 9, 34, 4, 114, 128, 88, 120, 118, 135, 137, 129, 183, 239, 143, 194])
        #expect(try ThumbHash.encode(width: 100, height: 100, rgba: Self.pattern(100, 100, alpha: false))
            == [223, 7, 2, 15, 2, 68, 82, 65, 85, 70, 21, 32, 19, 83, 119, 55, 118, 100, 118, 102, 7, 152, 121, 0])
        #expect(try ThumbHash.encodeReportingTies(width: 100, height: 100, rgba: Self.pattern(100, 100, alpha: false)).ties == [])
    }

    /// Alpha: bit 23 set, a sixth byte (alpha DC and scale), 5 luminance factors on the longer
    /// side instead of 7, and the alpha channel's 14 factors at the end.
    @Test func alphaTakesTheSixthByteAndFewerLuminanceFactors() throws {
        let hash = try ThumbHash.encode(width: 16, height: 16, rgba: Self.pattern(16, 16, alpha: true))
        #expect(hash == [90, 247, 133, 29, 6, 24, 128, 136, 113, 121, 183, 183, 119, 145, 191, 5, 220, 148, 103, 119, 87, 136, 120, 118, 80])
        #expect(hash[2] & 0x80 != 0)
        #expect(hash[3] & 7 == 5)
    }

    @Test func previewsDecodeAsTheOracleDecodes() throws {
        let red = try ThumbHash.decode([213, 251, 3, 7, 0, 165, 136, 81, 120, 136, 120, 119, 136, 136, 136, 136, 135, 128, 117, 9, 183, 151, 112, 11])
        #expect(red.width == 32 && red.height == 32)
        #expect(Array(red.rgba[0..<8]) == [254, 0, 1, 255, 254, 0, 1, 255])
        let disc = try ThumbHash.decode([32, 2, 129, 5, 0, 58, 241, 216, 118, 119, 118, 215, 151, 8, 131, 157, 118, 8, 7, 88, 135, 136, 128, 133, 88])
        #expect(disc.width == 32 && disc.height == 32)
        #expect(Array(disc.rgba[0..<8]) == [3, 128, 255, 0, 3, 128, 255, 0])
        let landscape = try ThumbHash.decode([26, 119, 10, 108, 154, 128, 135, 135, 128, 135, 135, 120, 136, 135, 127, 132, 119, 8, 136])
        #expect(landscape.width == 32 && landscape.height == 18)
        #expect(Array(landscape.rgba[0..<8]) == [32, 85, 25, 255, 31, 84, 25, 255])
        let portrait = try ThumbHash.decode([26, 119, 10, 106, 26, 128, 128, 135, 136, 135, 120, 135, 127, 116, 119, 8, 136])
        #expect(portrait.width == 9 && portrait.height == 32)
        #expect(Array(portrait.rgba[0..<8]) == [26, 80, 38, 255, 23, 80, 48, 255])
    }

    /// 100×50 keeps 7 luminance factors across and Math.round(3.5) = 4 down: 7/4.
    @Test func theAspectRatioComesFromTheFactorCounts() throws {
        #expect(ThumbHash.aspectRatio(of: try ThumbHash.encode(width: 100, height: 50, rgba: Self.pattern(100, 50, alpha: false))) == 1.75)
        #expect(ThumbHash.aspectRatio(of: try ThumbHash.encode(width: 9, height: 31, rgba: Self.pattern(9, 31, alpha: false))) == 2.0 / 7.0)
        #expect(ThumbHash.aspectRatio(of: try ThumbHash.encode(width: 8, height: 8, rgba: Self.solid(8, 8, [9, 9, 9, 255]))) == 1)
    }

    /// Grey has no colour: both colour DC terms are 31.5 + 31.5 × 0, exactly halfway, reported
    /// and rounded up to 32 as JavaScript's Math.round does (which differs from Swift's
    /// default rounding below zero, and from half-to-even at 30.5).
    @Test func tiesAreReportedWhereTheyAreAndRoundUp() throws {
        let grey = try ThumbHash.encodeReportingTies(width: 4, height: 4, rgba: Self.solid(4, 4, [128, 128, 128, 255]))
        #expect(grey.ties.contains(ThumbHash.Tie(offset: 6, bits: 6)))
        #expect(grey.ties.contains(ThumbHash.Tie(offset: 12, bits: 6)))
        #expect(grey.hash[0] >> 6 | (grey.hash[1] & 15) << 2 == 32)
        #expect(ThumbHash.roundHalfUp(30.5) == 31)
        #expect(ThumbHash.roundHalfUp(-2.5) == -2)
        #expect(ThumbHash.roundHalfUp(0.49999) == 0)
    }

    @Test func refusals() {
        #expect(throws: ThumbHash.Failure.unsupportedSize(width: 101, height: 1)) { try ThumbHash.encode(width: 101, height: 1, rgba: Self.solid(101, 1, [0, 0, 0, 255])) }
        #expect(throws: ThumbHash.Failure.unsupportedSize(width: 0, height: 5)) { try ThumbHash.encode(width: 0, height: 5, rgba: []) }
        #expect(throws: ThumbHash.Failure.wrongByteCount(expected: 16, actual: 15)) { try ThumbHash.encode(width: 2, height: 2, rgba: [UInt8](repeating: 0, count: 15)) }
        #expect(throws: ThumbHash.Failure.malformedHash) { try ThumbHash.decode([1, 2, 3]) }
        // Alpha announced (bit 23) without its byte.
        #expect(throws: ThumbHash.Failure.malformedHash) { try ThumbHash.decode([0, 0, 0x80, 7, 0]) }
        // Factors announced and missing.
        #expect(throws: ThumbHash.Failure.malformedHash) { try ThumbHash.decode([213, 251, 3, 7, 0, 165, 136]) }
    }
}

@Suite struct ImagePlaceholderRecordTests {
    @Test func recordsRoundTripAndRefuseWhatIsNotOne() {
        let placeholder = ImagePlaceholder(width: 3000, height: 2000, thumbHash: [1, 2, 3, 4, 5, 6])
        #expect(placeholder.record == [1, 0, 0, 0x0b, 0xb8, 0, 0, 0x07, 0xd0, 1, 2, 3, 4, 5, 6])
        #expect(ImagePlaceholder(record: placeholder.record) == placeholder)
        #expect(ImagePlaceholder(record: [2] + placeholder.record.dropFirst()) == nil)
        #expect(ImagePlaceholder(record: Array(placeholder.record.prefix(13))) == nil)
        #expect(ImagePlaceholder(record: [1, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 3, 4, 5]) == nil)
        #expect(ImagePlaceholder(record: placeholder.record + [UInt8](repeating: 0, count: 60)) == nil)
    }
}
