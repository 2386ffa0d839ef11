/// One IPv4 (4 bytes) or IPv6 (16 bytes) address, and whether it is internal: the kinds of
/// address an image fetch must not reach unless the operator named them.
struct ResolvedAddress: Sendable, Hashable, CustomStringConvertible {
    let bytes: [UInt8]

    init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses a numeric IPv4 (`10.0.0.1`) or IPv6 (`::1`, `[::1]`) address; nil for names.
    init?(numeric text: String) {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let v4 = Self.ipv4(text) {
            self.bytes = v4
        } else if let v6 = Self.ipv6(text) {
            self.bytes = v6
        } else {
            return nil
        }
    }

    /// Loopback, private, link-local, unique-local, carrier-grade NAT, multicast, reserved,
    /// unspecified, documentation and benchmarking ranges, and IPv6 forms embedding an
    /// IPv4 address that is internal.
    var isInternal: Bool {
        if bytes.count == 4 { return Self.internalV4(bytes) }
        let b = bytes
        let allZeroPrefix = b[0..<10].allSatisfy { $0 == 0 }
        if allZeroPrefix && b[10] == 0xff && b[11] == 0xff { return Self.internalV4(Array(b[12..<16])) }  // ::ffff:a.b.c.d
        if b[0..<12].allSatisfy({ $0 == 0 }) { return true }  // ::, ::1 and IPv4-compatible
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b { return Self.internalV4(Array(b[12..<16])) }  // 64:ff9b::/96
        if b[0] == 0xfe && (b[1] & 0xc0) == 0x80 { return true }  // fe80::/10 link-local
        if b[0] == 0xfe && (b[1] & 0xc0) == 0xc0 { return true }  // fec0::/10 site-local
        if (b[0] & 0xfe) == 0xfc { return true }  // fc00::/7 unique-local
        if b[0] == 0xff { return true }  // multicast
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8 { return true }  // documentation
        if b[0] == 0x20 && b[1] == 0x02 { return Self.internalV4(Array(b[2..<6])) }  // 6to4
        return false
    }

    private static func internalV4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1]) {
        case (0, _), (10, _), (127, _): return true
        case (100, 64...127): return true  // carrier-grade NAT
        case (169, 254): return true  // link-local (cloud metadata)
        case (172, 16...31): return true
        case (192, 168): return true
        case (192, 0) where b[2] == 0 || b[2] == 2: return true  // IETF, TEST-NET-1
        case (198, 18...19): return true  // benchmarking
        case (198, 51) where b[2] == 100: return true  // TEST-NET-2
        case (203, 0) where b[2] == 113: return true  // TEST-NET-3
        default: return b[0] >= 224  // multicast, reserved, broadcast
        }
    }

    /// The numeric form a connection can be made to (`10.0.0.1`, `::1`).
    var description: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }

    private static func ipv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCIIDigit), let value = UInt8(part) else { return nil }
            bytes.append(value)
        }
        return bytes
    }

    private static func ipv6(_ text: Substring) -> [UInt8]? {
        guard text.contains(":"), text.count <= 45 else { return nil }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt8]? {
            guard !part.isEmpty else { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let v4 = ipv4(piece) {
                    bytes += v4
                } else {
                    guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                    bytes += [UInt8(value >> 8), UInt8(value & 0xff)]
                }
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
