import Foundation

/// A list of CIDR ranges (`10.0.0.0/8,2001:db8::/32,127.0.0.1`): `--trusted-proxies`.
public struct AddressRanges: Sendable, Equatable {
    struct Range: Sendable, Equatable {
        let high: UInt64
        let low: UInt64
        /// Prefix length over the 128-bit form (an IPv4 /8 is /104).
        let bits: Int

        func contains(_ address: IPAddress) -> Bool {
            let (maskHigh, maskLow) = Self.mask(bits)
            return address.high & maskHigh == high && address.low & maskLow == low
        }

        static func mask(_ bits: Int) -> (UInt64, UInt64) {
            let high: UInt64 = bits >= 64 ? ~0 : bits == 0 ? 0 : ~0 << UInt64(64 - bits)
            let low: UInt64 = bits <= 64 ? 0 : bits >= 128 ? ~0 : ~0 << UInt64(128 - bits)
            return (high, low)
        }
    }

    let ranges: [Range]

    public static let none = AddressRanges(ranges: [])

    init(ranges: [Range]) {
        self.ranges = ranges
    }

    /// Reads a comma-separated list of addresses and ranges (`a.b.c.d/n`, n ≤ 32;
    /// `v6/n`, n ≤ 128; an address alone is its own /32 or /128). Nil when any entry is
    /// malformed or has bits set past its prefix.
    public init?(parsing text: String) {
        var ranges: [Range] = []
        for entry in text.split(separator: ",") {
            let trimmed = entry.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty else { continue }
            let parts = trimmed.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let address = IPAddress(String(parts[0])) else { return nil }
            let limit = address.isIPv4 ? 32 : 128
            var bits = limit
            if parts.count == 2 {
                guard parts[1].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(parts[1]), (0...limit).contains(value) else { return nil }
                bits = value
            }
            let total = address.isIPv4 ? bits + 96 : bits
            let (maskHigh, maskLow) = Range.mask(total)
            guard address.high & ~maskHigh == 0, address.low & ~maskLow == 0 else { return nil }
            ranges.append(Range(high: address.high, low: address.low, bits: total))
        }
        self.ranges = ranges
    }

    public var isEmpty: Bool { ranges.isEmpty }

    public func contains(_ address: IPAddress) -> Bool {
        for range in ranges where range.contains(address) { return true }
        return false
    }
}
