/// Marsaglia's xorshift64* generator: small, fast, and reproducible from its seed.
struct Xorshift64Star: Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        // Any seed, 0 included: the state must never be 0.
        state = (seed ^ 0x2545_F491_4F6C_DD1D) | 1
    }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }

    /// A uniform double in [0, 1) from the top 53 bits.
    mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
