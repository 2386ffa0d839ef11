import Synchronization
import GatewaySupport

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

    package static func isAcceptable(_ candidate: String) -> Bool {
        isAcceptable(candidate.utf8)
    }

    /// `isAcceptable` on the bytes of a header value.
    package static func isAcceptable(_ utf8: some Collection<UInt8>) -> Bool {
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

    /// 32 lowercase hex digits: a random 64-bit prefix chosen once per process, then a
    /// 64-bit counter scrambled by SplitMix64's finaliser (a bijection, so ids never repeat
    /// within a process, and replicas differ by prefix). No system call per request.
    public static func generate() -> String {
        let count = counter.add(1, ordering: .relaxed).newValue
        return processPrefix + HexIDs.hex16(HexIDs.scramble(count))
    }

    /// Appends a new id (as `generate` makes them) to `bytes`, without making a String.
    package static func appendGenerated(to bytes: inout [UInt8]) {
        let count = counter.add(1, ordering: .relaxed).newValue
        bytes.append(contentsOf: processPrefixBytes)
        HexIDs.appendHex16(HexIDs.scramble(count), to: &bytes)
    }

    private static let processPrefix: String = {
        var generator = SystemRandomNumberGenerator()
        return HexIDs.hex16(generator.next())
    }()

    private static let processPrefixBytes: [UInt8] = Array(processPrefix.utf8)

    private static let counter = Atomic<UInt64>(0)
}
