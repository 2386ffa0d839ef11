import Synchronization

/// W3C Trace Context (level 1) of one request: the client's `traceparent` when it is valid
/// (with its `tracestate`), else a new trace. The gateway records no spans of its own: it
/// keeps the trace id, and each origin request gets a new span id under it.
public struct TraceContext: Sendable, Equatable {
    /// 32 lower-case hex digits, not all zero.
    public let traceID: String
    /// The client's span (16 hex digits), nil for a trace begun here.
    public let parentID: String?
    /// The trace flags, 2 hex digits (`01`: sampled); `00` for a trace begun here.
    public let flags: String
    /// The client's `tracestate`, passed on as it came when it is well-formed.
    public let state: String?

    public init(traceID: String, parentID: String?, flags: String, state: String?) {
        self.traceID = traceID
        self.parentID = parentID
        self.flags = flags
        self.state = state
    }

    /// A new trace with a random id.
    public static func begin() -> TraceContext {
        TraceContext(traceID: newTraceID(), parentID: nil, flags: "00", state: nil)
    }

    /// The context of a request carrying `traceparent` and `tracestate` (its fields joined
    /// with commas): kept when `traceparent` is valid, else a new trace (and `tracestate`
    /// dropped with it, as the specification asks).
    public static func from(traceparent: String?, tracestate: String?) -> TraceContext {
        guard let traceparent, let (traceID, parentID, flags) = parse(traceparent) else { return begin() }
        return TraceContext(traceID: traceID, parentID: parentID, flags: flags, state: tracestate.flatMap(validState))
    }

    /// The `traceparent` of a request this one makes, as span `spanID`.
    public func traceparent(spanID: String) -> String {
        "00-\(traceID)-\(spanID)-\(flags)"
    }

    /// A new span id: 16 hex digits, not all zero.
    public static func newSpanID() -> String { HexIDs.hex16(nextScrambled()) }

    /// Reads `version-traceid-parentid-flags`. Version 00 is exactly 55 characters; a later
    /// version (not `ff`) may add fields after a `-`, which are ignored. Hex is lower case;
    /// neither id may be all zeros.
    static func parse(_ text: String) -> (String, String, String)? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 55, bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"), bytes[52] == UInt8(ascii: "-") else {
            return nil
        }
        let version = bytes[0..<2]
        guard version.allSatisfy(isLowerHex), version != [UInt8(ascii: "f"), UInt8(ascii: "f")] else { return nil }
        let isZeroVersion = version == [UInt8(ascii: "0"), UInt8(ascii: "0")]
        guard isZeroVersion ? bytes.count == 55 : (bytes.count == 55 || bytes[55] == UInt8(ascii: "-")) else { return nil }
        let traceID = bytes[3..<35]
        let parentID = bytes[36..<52]
        let flags = bytes[53..<55]
        guard traceID.allSatisfy(isLowerHex), parentID.allSatisfy(isLowerHex), flags.allSatisfy(isLowerHex),
            traceID.contains(where: { $0 != UInt8(ascii: "0") }), parentID.contains(where: { $0 != UInt8(ascii: "0") })
        else { return nil }
        return (String(decoding: traceID, as: UTF8.self), String(decoding: parentID, as: UTF8.self), String(decoding: flags, as: UTF8.self))
    }

    /// `tracestate` when it can be passed on: at most 512 bytes of visible ASCII, spaces and
    /// tabs, in at most 32 list members.
    static func validState(_ text: String) -> String? {
        let bytes = text.utf8
        guard !bytes.isEmpty, bytes.count <= 512, bytes.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 }),
            bytes.reduce(1, { $0 + ($1 == UInt8(ascii: ",") ? 1 : 0) }) <= 32
        else { return nil }
        return text
    }

    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
    }

    /// A random 64-bit prefix and a second random value chosen once per process, then a
    /// 64-bit counter scrambled by SplitMix64's finaliser (a bijection, so ids never repeat
    /// within a process): no system call per id, as with request ids.
    private static let seeds: (prefix: UInt64, mask: UInt64) = {
        var generator = SystemRandomNumberGenerator()
        return (generator.next() | 1, generator.next())
    }()
    private static let counter = Atomic<UInt64>(0)

    /// A new trace id: the process prefix, then a scrambled count (32 hex digits).
    private static func newTraceID() -> String {
        HexIDs.hex16(seeds.prefix) + HexIDs.hex16(nextScrambled())
    }

    /// A scrambled count, never zero.
    private static func nextScrambled() -> UInt64 {
        let value = HexIDs.scramble(counter.add(1, ordering: .relaxed).newValue ^ seeds.mask)
        return value == 0 ? 1 : value
    }
}
