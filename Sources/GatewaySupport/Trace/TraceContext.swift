import HTTPCodec
import Synchronization

/// W3C Trace Context (level 1) of one request: the client's `traceparent` when it is valid
/// (with its `tracestate`), else a new trace. With tracing on, the sampler's decision is in
/// `flags` and a recorded request has its server span's id (`spanID`), which requests to
/// the origin name as their parent; otherwise each origin request gets a new span id under
/// the client's.
public struct TraceContext: Sendable, Equatable {
    /// The trace id's two halves (not both zero); kept as numbers, so a request makes no
    /// text for its trace unless something prints it.
    public let traceIDHigh: UInt64
    public let traceIDLow: UInt64
    /// The client's span, 0 for a trace begun here.
    public let parentSpan: UInt64
    /// The trace flags (`0x01`: sampled); 0 for a trace begun here.
    public let traceFlags: UInt8
    /// The client's `tracestate`, passed on as it came when it is well-formed.
    public let state: String?
    /// The gateway's server span for this request when tracing records it; 0 otherwise.
    public let serverSpan: UInt64

    public init(traceIDHigh: UInt64, traceIDLow: UInt64, parentSpan: UInt64, traceFlags: UInt8, state: String?, serverSpan: UInt64 = 0) {
        self.traceIDHigh = traceIDHigh
        self.traceIDLow = traceIDLow
        self.parentSpan = parentSpan
        self.traceFlags = traceFlags
        self.state = state
        self.serverSpan = serverSpan
    }

    /// A context from its text: ids of 32 and 16 lower-case hex digits and two digits of
    /// flags, as `traceparent` carries them (the tests' way of writing one).
    public init(traceID: String, parentID: String?, flags: String, state: String?, spanID: String? = nil) {
        let trace = Array(traceID.utf8)
        precondition(trace.count == 32 && flags.utf8.count == 2, "a trace id is 32 hex digits, flags 2")
        self.init(
            traceIDHigh: Self.number(trace[0..<16]), traceIDLow: Self.number(trace[16..<32]), parentSpan: parentID.map { Self.number($0.utf8) } ?? 0,
            traceFlags: UInt8(Self.number(flags.utf8)), state: state, serverSpan: spanID.map { Self.number($0.utf8) } ?? 0)
    }

    /// 32 lower-case hex digits.
    public var traceID: String { HexIDs.hex16(traceIDHigh) + HexIDs.hex16(traceIDLow) }
    /// The client's span (16 hex digits), nil for a trace begun here.
    public var parentID: String? { parentSpan == 0 ? nil : HexIDs.hex16(parentSpan) }
    /// The trace flags, 2 hex digits (`01`: sampled).
    public var flags: String { String(HexIDs.hex16(UInt64(traceFlags)).suffix(2)) }
    /// The server span's 16 hex digits when tracing records the request; nil otherwise.
    public var spanID: String? { serverSpan == 0 ? nil : HexIDs.hex16(serverSpan) }
    /// Whether tracing records this request (it has a server span).
    public var isRecorded: Bool { serverSpan != 0 }

    /// Whether the sampled flag is set.
    public var isSampled: Bool { traceFlags & 1 == 1 }

    /// This context with the sampler's decision: the sampled flag set or cleared, and the
    /// server span's id when sampled.
    public func deciding(sampled: Bool) -> TraceContext {
        TraceContext(
            traceIDHigh: traceIDHigh, traceIDLow: traceIDLow, parentSpan: parentSpan, traceFlags: sampled ? 1 : 0,
            state: state, serverSpan: sampled ? Self.nextScrambled() : 0)
    }

    /// The `traceparent` of a request this one makes to the origin: under the server span
    /// when one is recorded, else under a new span id.
    public var outgoingTraceparent: String {
        traceparent(spanID: spanID ?? Self.newSpanID())
    }

    /// What a `traceparent` value says without making a context (a stored answer's
    /// sampling decision, which must not allocate): nil when it is not valid, else its
    /// sampled flag and its trace id's last 16 hex digits as a number.
    public static func peek(traceparent bytes: UnsafeRawBufferPointer) -> (sampled: Bool, traceIDLow: UInt64)? {
        guard valid(bytes) else { return nil }
        let low = bytes[19..<35].reduce(UInt64(0)) { $0 << 4 | UInt64(nibble($1)) }
        return (nibble(bytes[54]) & 1 == 1, low)
    }

    /// A new trace id as its two halves (the process prefix, a scrambled count), for a
    /// sampling decision before any text is made.
    public static func newTraceIDParts() -> (high: UInt64, low: UInt64) {
        (seeds.prefix, nextScrambled())
    }

    /// A new trace from `newTraceIDParts()`.
    public static func begin(traceIDParts parts: (high: UInt64, low: UInt64), sampled: Bool) -> TraceContext {
        TraceContext(
            traceIDHigh: parts.high, traceIDLow: parts.low, parentSpan: 0, traceFlags: sampled ? 1 : 0, state: nil,
            serverSpan: sampled ? nextScrambled() : 0)
    }

    /// A new trace with a random id.
    public static func begin() -> TraceContext {
        begin(traceIDParts: newTraceIDParts(), sampled: false)
    }

    /// The context of a request carrying `traceparent` and `tracestate` (its fields joined
    /// with commas): kept when `traceparent` is valid, else a new trace (and `tracestate`
    /// dropped with it, as the specification asks).
    public static func from(traceparent: String?, tracestate: String?) -> TraceContext {
        guard let traceparent else { return begin() }
        var text = traceparent
        let read: TraceContext? = text.withUTF8 { bytes in
            let raw = UnsafeRawBufferPointer(bytes)
            guard valid(raw) else { return nil }
            return TraceContext(
                traceIDHigh: number(raw[3..<19]), traceIDLow: number(raw[19..<35]), parentSpan: number(raw[36..<52]),
                traceFlags: UInt8(number(raw[53..<55])), state: tracestate.flatMap(validState))
        }
        return read ?? begin()
    }

    /// The `traceparent` of a request this one makes, as span `spanID`.
    public func traceparent(spanID: String) -> String {
        "00-\(traceID)-\(spanID)-\(flags)"
    }

    /// A new span id: 16 hex digits, not all zero.
    public static func newSpanID() -> String { HexIDs.hex16(nextScrambled()) }

    /// Whether `bytes` is a valid `traceparent` (version-traceid-parentid-flags). Version
    /// 00 is exactly 55 characters; a later version (not `ff`) may add fields after a `-`,
    /// which are ignored. Hex is lower case; neither id may be all zeros.
    private static func valid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 55, bytes[2] == UInt8(ascii: "-"), bytes[35] == UInt8(ascii: "-"), bytes[52] == UInt8(ascii: "-") else {
            return false
        }
        let version = bytes[0..<2]
        guard version.allSatisfy(isLowerHex), !(bytes[0] == UInt8(ascii: "f") && bytes[1] == UInt8(ascii: "f")) else { return false }
        let isZeroVersion = bytes[0] == UInt8(ascii: "0") && bytes[1] == UInt8(ascii: "0")
        guard isZeroVersion ? bytes.count == 55 : (bytes.count == 55 || bytes[55] == UInt8(ascii: "-")) else { return false }
        let traceID = bytes[3..<35]
        let parentID = bytes[36..<52]
        let flags = bytes[53..<55]
        return traceID.allSatisfy(isLowerHex) && parentID.allSatisfy(isLowerHex) && flags.allSatisfy(isLowerHex)
            && traceID.contains(where: { $0 != UInt8(ascii: "0") }) && parentID.contains(where: { $0 != UInt8(ascii: "0") })
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

    /// The number hex digits spell (at most 16 of them, already checked to be hex).
    private static func number<Digits: Sequence<UInt8>>(_ digits: Digits) -> UInt64 {
        digits.reduce(0) { $0 << 4 | UInt64(nibble($1)) }
    }

    /// A hex digit's value; only for bytes already checked to be hex digits.
    private static func nibble(_ byte: UInt8) -> UInt8 { ASCII.hexValue(byte) ?? 0 }

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

    /// A scrambled count, never zero: a new span id.
    public static func nextScrambled() -> UInt64 {
        let value = HexIDs.scramble(counter.add(1, ordering: .relaxed).newValue ^ seeds.mask)
        return value == 0 ? 1 : value
    }
}
