/// Request ids: the client's `X-Request-ID` when it is safe to echo and log, a new random
/// one otherwise.
public enum RequestID {
    public static let headerName = "X-Request-ID"

    /// The client's id when it is 1 to 128 characters of `A-Z a-z 0-9 - _ . : / + = @`;
    /// anything else (empty, too long, spaces, quotes, control bytes) is replaced, so the id
    /// can go into logs and headers without escaping.
    public static func accept(_ candidate: String?) -> String {
        guard let candidate, isAcceptable(candidate) else { return generate() }
        return candidate
    }

    static func isAcceptable(_ candidate: String) -> Bool {
        let utf8 = candidate.utf8
        guard (1...128).contains(utf8.count) else { return false }
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "/"),
                UInt8(ascii: "+"), UInt8(ascii: "="), UInt8(ascii: "@"):
                true
            default:
                false
            }
        }
    }

    /// 128 random bits as 32 lowercase hex digits.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return hex16(high) + hex16(low)
    }

    private static func hex16(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
