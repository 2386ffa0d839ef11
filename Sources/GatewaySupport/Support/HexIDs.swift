/// The pieces of the ids the gateway makes without a system call per id (request ids, trace
/// and span ids): a counter scrambled into random-looking values, written as hex.
public enum HexIDs {
    /// SplitMix64's finaliser: a bijection on 64-bit values, so distinct counts never give
    /// the same id; 0 maps to 0.
    @inlinable
    public static func scramble(_ value: UInt64) -> UInt64 {
        var z = value &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `value` as 16 lower-case hex digits, leading zeros kept.
    public static func hex16(_ value: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            for index in 0..<16 { buffer[index] = digit(value, index) }
            return 16
        }
    }

    /// Appends `value` as `hex16` writes it, without making a String (the cache-hit path's
    /// request ids). Inlinable: it runs once per hit, from another module.
    @inlinable
    public static func appendHex16(_ value: UInt64, to bytes: inout [UInt8]) {
        for index in 0..<16 { bytes.append(digit(value, index)) }
    }

    /// The ASCII lower-case hex digit `index` (0 the most significant) of `value`.
    @inlinable
    static func digit(_ value: UInt64, _ index: Int) -> UInt8 {
        let nibble = UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * index)) & 0xF
        return nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
