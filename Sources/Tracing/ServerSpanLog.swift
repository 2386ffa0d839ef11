import GatewaySupport

/// The text of server spans as a loop gathers it: each field's bytes copied into one buffer
/// the loop keeps and reuses (`ServerLoop.spanText`), cut to ``maxFieldBytes`` at a
/// character's start. Emptied for each span; grows to its working size once.
///
/// Owned by one loop; a value it lends to ``Tracer/recordServer(_:text:)`` for the call.
public struct ServerSpanText {
    /// Sized ahead (zeros past ``count``), so that adding a field is one copy, not an append.
    private var storage = [UInt8](repeating: 0, count: 512)
    /// How many bytes the fields take.
    public private(set) var count = 0

    /// The most bytes one field keeps.
    public static let maxFieldBytes = 4096

    public init() {}

    public mutating func reset() { count = 0 }

    /// The fields' bytes, for the call.
    public func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    /// Copies `raw`; returns where it lies.
    public mutating func add(_ raw: UnsafeRawBufferPointer) -> Range<Int> {
        var length = min(raw.count, Self.maxFieldBytes)
        // Cut before a continuation byte, never inside a character.
        while length < raw.count, length > 0, raw[length] & 0xC0 == 0x80 { length -= 1 }
        let start = count
        guard length > 0 else { return start..<start }
        if start + length > storage.count { storage.append(contentsOf: repeatElement(0, count: max(storage.count, length))) }
        storage.withUnsafeMutableBytes { ($0.baseAddress! + start).copyMemory(from: raw.baseAddress!, byteCount: length) }
        count = start + length
        return start..<count
    }

    public mutating func add(_ string: String) -> Range<Int> {
        var string = string
        return string.withUTF8 { add(UnsafeRawBufferPointer($0)) }
    }

    public mutating func add(_ string: StaticString) -> Range<Int> {
        add(UnsafeRawBufferPointer(start: string.utf8Start, count: string.utf8CodeUnitCount))
    }

    public mutating func add(_ string: String?) -> Range<Int>? { string.map { add($0) } }
}

/// A request's server span as its loop hands it over: numbers, and where each text field
/// lies in the loop's ``ServerSpanText`` (nil: absent). Nothing is made from it on the loop:
/// ``ServerSpanLog`` copies it into preallocated storage, and the exporter reads it back as
/// an ``HTTPServerSpan``.
public struct ServerSpanFields {
    public var trace: TraceContext
    public var status: Int
    public var overTLS: Bool
    public var elapsed: Duration
    public var method: Range<Int>
    /// The path as sent, without the query.
    public var path: Range<Int>
    /// The route's template; nil when no route matched.
    public var route: Range<Int>?
    /// `1.0`, `1.1` or `2`.
    public var protocolVersion: Range<Int>
    public var host: Range<Int>?
    public var peer: Range<Int>
    public var userAgent: Range<Int>?
    public var cacheStatus: Range<Int>?
    public var rateLimitClass: Range<Int>?
    public var user: Range<Int>?
    public var requestID: Range<Int>
    /// The client's `tracestate`.
    public var traceState: Range<Int>?

    public init(
        trace: TraceContext, status: Int, overTLS: Bool, elapsed: Duration, method: Range<Int>, path: Range<Int>, route: Range<Int>?,
        protocolVersion: Range<Int>, host: Range<Int>?, peer: Range<Int>, userAgent: Range<Int>?, cacheStatus: Range<Int>?,
        rateLimitClass: Range<Int>?, user: Range<Int>?, requestID: Range<Int>, traceState: Range<Int>?
    ) {
        self.trace = trace
        self.status = status
        self.overTLS = overTLS
        self.elapsed = elapsed
        self.method = method
        self.path = path
        self.route = route
        self.protocolVersion = protocolVersion
        self.host = host
        self.peer = peer
        self.userAgent = userAgent
        self.cacheStatus = cacheStatus
        self.rateLimitClass = rateLimitClass
        self.user = user
        self.requestID = requestID
        self.traceState = traceState
    }
}

/// Server spans, one after another, in one byte buffer the queue keeps (and reuses) between
/// batches: a span costs its loop one copy of its bytes, not a heap object per field. Each
/// record: its length (4 bytes), the ids, times and status as little-endian numbers, the
/// flags, each text field's start and length in the text that follows (2 + 2 bytes; a
/// length of `0xFFFF`: absent), then the text as the loop gathered it. The exporter
/// repairs any byte that is not UTF-8 as it reads a record back, so every string it sends
/// is valid.
///
/// A value; the queue holds it under its lock.
struct ServerSpanLog {
    private(set) var bytes: [UInt8]
    private(set) var count = 0

    init(reservingBytes: Int) {
        bytes = []
        bytes.reserveCapacity(reservingBytes)
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        count = 0
    }

    /// The fixed part of a record: length, four ids, two times, status, flags, and the
    /// text fields' places.
    private static let headBytes = 4 + 4 * 8 + 2 * 8 + 2 + 1 + 4 * textFields
    private static let textFields = 12

    /// Appends one span, ended at `endNanoseconds`, its text `text` (at most 64 KiB: the
    /// loop's ``ServerSpanText`` for this span): the fixed part made on the stack, then two
    /// copies (no growth of the buffer once it has its working size).
    mutating func append(_ fields: ServerSpanFields, text: UnsafeRawBufferPointer, endNanoseconds: UInt64, recordsEndUser: Bool) {
        let textLength = min(text.count, Int(UInt16.max) - 1)
        withUnsafeTemporaryAllocation(byteCount: Self.headBytes, alignment: 8) { head in
            var cursor = 0
            func store64(_ number: UInt64) {
                head.storeBytes(of: number.littleEndian, toByteOffset: cursor, as: UInt64.self)
                cursor += 8
            }
            func store16(_ number: UInt16) {
                head.storeBytes(of: number.littleEndian, toByteOffset: cursor, as: UInt16.self)
                cursor += 2
            }
            func place(_ range: Range<Int>?) {
                guard let range, range.upperBound <= textLength else {
                    store16(0)
                    return store16(.max)
                }
                store16(UInt16(range.lowerBound))
                store16(UInt16(range.count))
            }
            head.storeBytes(of: UInt32(Self.headBytes + textLength).littleEndian, toByteOffset: 0, as: UInt32.self)
            cursor = 4
            let trace = fields.trace
            store64(trace.traceIDHigh)
            store64(trace.traceIDLow)
            store64(trace.parentSpan)
            store64(trace.serverSpan)
            store64(endNanoseconds)
            store64(SpanRecord.start(endingAt: endNanoseconds, after: fields.elapsed))
            store16(UInt16(clamping: fields.status))
            head[cursor] = (fields.overTLS ? 1 : 0) | (recordsEndUser ? 2 : 0)
            cursor += 1
            place(fields.protocolVersion)
            place(fields.method)
            place(fields.path)
            place(fields.route)
            place(fields.host)
            place(fields.peer)
            place(fields.userAgent)
            place(fields.cacheStatus)
            place(fields.rateLimitClass)
            place(recordsEndUser ? fields.user : nil)
            place(fields.requestID)
            place(fields.traceState)
            bytes.append(contentsOf: UnsafeRawBufferPointer(head).assumingMemoryBound(to: UInt8.self))
        }
        if textLength > 0 { bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[0..<textLength]).assumingMemoryBound(to: UInt8.self)) }
        count += 1
    }

    /// The spans in `bytes`, as the exporter encodes them.
    static func spans(in bytes: [UInt8]) -> [HTTPServerSpan.Finished] {
        var spans: [HTTPServerSpan.Finished] = []
        var reader = Reader(bytes: bytes)
        while reader.offset < bytes.count {
            let end = reader.offset + Int(reader.number(UInt32.self))
            let trace = (high: reader.number(UInt64.self), low: reader.number(UInt64.self), parent: reader.number(UInt64.self), span: reader.number(UInt64.self))
            let endNanoseconds = reader.number(UInt64.self)
            let startNanoseconds = reader.number(UInt64.self)
            let status = Int(reader.number(UInt16.self))
            let flags = reader.number(UInt8.self)
            let places = reader.offset
            let textStart = places + 4 * Self.textFields
            /// Text field `index`: its place (start, length) read where the places lie.
            func text(_ index: Int) -> String? {
                var place = Reader(bytes: bytes, offset: places + 4 * index)
                let start = Int(place.number(UInt16.self))
                let length = place.number(UInt16.self)
                guard length != UInt16.max else { return nil }
                return String(decoding: bytes[textStart + start..<textStart + start + Int(length)], as: UTF8.self)
            }
            let protocolVersion = text(0) ?? ""
            let method = text(1) ?? ""
            let path = text(2) ?? ""
            let route = text(3)
            let host = text(4)
            let peer = text(5) ?? ""
            let userAgent = text(6)
            let cacheStatus = text(7)
            let rateLimitClass = text(8)
            let user = text(9)
            let requestID = text(10) ?? ""
            let state = text(11)
            reader.offset = end
            let context = TraceContext(
                traceIDHigh: trace.high, traceIDLow: trace.low, parentSpan: trace.parent, traceFlags: 1, state: state, serverSpan: trace.span)
            let fields = HTTPServerSpan(
                method: method, path: path, route: route, status: status, protocolVersion: protocolVersion, scheme: flags & 1 == 1 ? "https" : "http",
                host: host, peer: peer, userAgent: userAgent, cacheStatus: cacheStatus, rateLimitClass: rateLimitClass, user: user, requestID: requestID)
            spans.append(
                HTTPServerSpan.Finished(
                    fields: fields, trace: context, elapsed: .nanoseconds(Int64(endNanoseconds - startNanoseconds)), endNanoseconds: endNanoseconds,
                    recordsEndUser: flags & 2 == 2))
        }
        return spans
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        mutating func number<Number: FixedWidthInteger>(_: Number.Type) -> Number {
            var value = Number.zero
            for index in 0..<MemoryLayout<Number>.size { value |= Number(bytes[offset + index]) << (8 * index) }
            offset += MemoryLayout<Number>.size
            return value
        }
    }
}
