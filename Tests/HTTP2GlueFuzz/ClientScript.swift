import TestSupport

/// What the client sends, decoded from a fuzz input: a sequence of operations, each of which
/// writes one HTTP/2 frame whose length field is right (so the fuzzer spends its time on what
/// frames say and in which order, not on framing nghttp2 refuses at once), or, rarely, raw
/// bytes that may break the framing.
///
/// Each operation starts with a byte whose low three bits choose it:
/// 0 a request: stream, method, path, extra fields; the byte's bit 8 ends the stream with the
///   HEADERS, bit 16 splits the block over HEADERS and a CONTINUATION;
/// 1 DATA: stream, length, flags, then up to 255 bytes of payload from the input, filled with
///   zeros up to the length (a few bytes of input make a large body); 2 any frame (type, flags, stream id, payload); 3 RST_STREAM;
/// 4 SETTINGS; 5 WINDOW_UPDATE; 6 PING (bit 8), else PRIORITY_UPDATE (bit 16) or PRIORITY;
/// 7 raw bytes.
/// Everything the operation needs next is read from the input; a short input reads zeros.
///
/// It also notes what the checks of the server's answer need: the streams it opened, the
/// method of each stream a request operation opened, the streams whose request it ended and
/// did not reset (each must be answered), and the largest frame the client allowed.
struct ClientScript {
    private(set) var bytes: [UInt8] = []
    /// Streams opened by a request operation, with their method.
    private(set) var methods: [UInt32: String] = [:]
    /// Every stream the client opened: sent HEADERS on (a request, or any frame of type 1)
    /// while it was new and above every stream opened before. (nghttp2 ignores HEADERS on a
    /// new stream below the highest opened: docs/http2.md lists it among its deviations.)
    private(set) var opened: Set<UInt32> = []
    private var highestOpened: UInt32 = 0
    /// Streams the client sent END_STREAM on, and streams it reset.
    private var ended: Set<UInt32> = []
    private var reset: Set<UInt32> = []
    /// The streams the server owes an answer (or a reset): opened and ended by the client,
    /// not reset by it. Empty when raw bytes made what the server read unknowable.
    var awaited: Set<UInt32> { framingIntact ? opened.intersection(ended).subtracting(reset) : [] }
    /// The client's SETTINGS_MAX_FRAME_SIZE as last sent (16,384 until it sends one), or
    /// nil once raw bytes made what the server read unknowable.
    private(set) var maxFrameSize: Int? = 16_384
    /// Whether the framing is known to be intact (no raw bytes sent).
    var framingIntact: Bool { maxFrameSize != nil }

    static let methodNames = ["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "GET", "TRACE", "PATCH", "CONNECT", "GET", "BREW"]
    static let fieldNames = [
        "accept-encoding", "content-length", "content-type", "te", "connection", "host", "cookie", "x-request-id", "if-none-match",
        "priority", "accept", "transfer-encoding", "upgrade", "X-Upper", "traceparent", "", ":path", ":method", ":status", "range",
    ]

    init(_ input: [UInt8]) {
        var reader = Reader(input)
        while !reader.atEnd, bytes.count < 1 << 20 {
            let op = reader.byte()
            switch op & 7 {
            case 0: request(&reader, op)
            case 1:
                let stream = Self.streamID(reader.byte())
                let length = Int(reader.short()) % 20_000
                // END_STREAM and PADDED as the input says (a pad length past the payload is the
                // client's error: nghttp2 ends the connection).
                let flags = reader.byte() & 0x9
                let given = reader.bytes(Int(reader.byte()))
                frame(type: 0, flags: flags, stream: stream, given + [UInt8](repeating: 0, count: max(0, length - given.count)))
            case 2:
                let type = reader.byte()
                let flags = reader.byte()
                let stream = reader.word() & 0x7fff_ffff
                let payload = reader.bytes(Int(reader.byte()))
                if type == 4, flags & 1 == 0, stream == 0 { noteSettings(payload) }
                if type == 1 { _ = open(stream) }
                if type == 3 { reset.insert(stream) }
                frame(type: type, flags: flags, stream: stream, payload)
            case 3:
                let stream = Self.streamID(reader.byte())
                reset.insert(stream)
                frame(type: 3, flags: 0, stream: stream, Self.word(reader.word() % 16))
            case 4:
                var payload: [UInt8] = []
                for _ in 0..<Int(reader.byte() % 4) {
                    payload += [0, reader.byte() % 9] + Self.word(reader.word())
                }
                noteSettings(payload)
                frame(type: 4, flags: 0, stream: 0, payload)
            case 5:
                let target = reader.byte()
                frame(type: 8, flags: 0, stream: target & 0x80 != 0 ? 0 : Self.streamID(target), Self.word(reader.word() & 0x7fff_ffff))
            case 6:
                if op & 8 != 0 {
                    frame(type: 6, flags: 0, stream: 0, reader.bytes(8, padTo: 8))
                } else {
                    // PRIORITY (RFC 7540's, ignored under RFC 9218) or PRIORITY_UPDATE (0x10).
                    let stream = Self.streamID(reader.byte())
                    if op & 16 != 0 {
                        frame(type: 0x10, flags: 0, stream: 0, Self.word(stream) + Array("u=\(reader.byte() % 8), i".utf8))
                    } else {
                        frame(type: 2, flags: 0, stream: stream, Self.word(Self.streamID(reader.byte())) + [reader.byte()])
                    }
                }
            default:
                bytes += reader.bytes(Int(reader.byte() % 64))
                maxFrameSize = nil
            }
        }
    }

    /// Client stream ids: odd, 1 to 31, so operations meet on the same streams.
    static func streamID(_ byte: UInt8) -> UInt32 { UInt32(byte % 16) * 2 + 1 }

    static func word(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    private mutating func frame(type: UInt8, flags: UInt8, stream: UInt32, _ payload: [UInt8]) {
        if type <= 1, flags & 1 != 0 { ended.insert(stream) }
        bytes += HTTP2Frames.frame(type: type, flags: flags, stream: stream, payload)
    }

    /// Notes HEADERS on `stream`; true when they opened it.
    private mutating func open(_ stream: UInt32) -> Bool {
        guard stream != 0, !opened.contains(stream), stream > highestOpened else { return false }
        highestOpened = stream
        opened.insert(stream)
        return true
    }

    private mutating func noteSettings(_ payload: [UInt8]) {
        guard maxFrameSize != nil else { return }
        var index = 0
        while index + 6 <= payload.count {
            let id = Int(payload[index]) << 8 | Int(payload[index + 1])
            let value = Int(payload[index + 2]) << 24 | Int(payload[index + 3]) << 16 | Int(payload[index + 4]) << 8 | Int(payload[index + 5])
            // A value outside 16,384...16,777,215 is a connection error: the server sends GOAWAY.
            if id == 5, (16_384...16_777_215).contains(value) { maxFrameSize = value }
            index += 6
        }
    }

    /// A request's header block, split over a HEADERS frame and CONTINUATIONs when the input
    /// says so.
    private mutating func request(_ reader: inout Reader, _ op: UInt8) {
        let stream = Self.streamID(reader.byte())
        let method = Self.methodNames[Int(reader.byte()) % Self.methodNames.count]
        var path = GlueServer.paths[Int(reader.byte()) % GlueServer.paths.count]
        if path.hasSuffix("=") { path += String(Int(reader.short()) * 20) }
        var block = HTTP2Frames.literal(":method", method) + HTTP2Frames.literal(":scheme", "http") + HTTP2Frames.literal(":authority", "127.0.0.1")
            + HTTP2Frames.literal(":path", path)
        for _ in 0..<Int(reader.byte() % 6) {
            let name = Self.fieldNames[Int(reader.byte()) % Self.fieldNames.count]
            let value = String(decoding: reader.bytes(Int(reader.byte() % 24)), as: UTF8.self)
            block += HTTP2Frames.literal(name, value)
        }
        let endStream: UInt8 = op & 8 != 0 ? 0x1 : 0
        if op & 16 != 0, block.count > 8 {
            let cut = Int(reader.byte()) % (block.count - 1) + 1
            frame(type: 1, flags: endStream, stream: stream, Array(block[..<cut]))
            frame(type: 9, flags: 0x4, stream: stream, Array(block[cut...]))
        } else {
            frame(type: 1, flags: endStream | 0x4, stream: stream, block)
        }
        // Only the request that opened the stream is answered (nghttp2 ignores HEADERS on a
        // stream that was closed, and a second request on an open one is an error).
        if open(stream) { methods[stream] = method }
    }
}

/// Reads a fuzz input front to back; past its end every read gives zeros.
struct Reader {
    private let input: [UInt8]
    private var at = 0

    init(_ input: [UInt8]) { self.input = input }

    var atEnd: Bool { at >= input.count }

    mutating func byte() -> UInt8 {
        guard at < input.count else { return 0 }
        defer { at += 1 }
        return input[at]
    }

    mutating func short() -> UInt16 { UInt16(byte()) << 8 | UInt16(byte()) }

    mutating func word() -> UInt32 { UInt32(short()) << 16 | UInt32(short()) }

    /// Up to `count` bytes (fewer at the end), or exactly `padTo` with zeros after them.
    mutating func bytes(_ count: Int, padTo: Int = 0) -> [UInt8] {
        let end = min(input.count, at + count)
        var taken = at < end ? Array(input[at..<end]) : []
        at = max(at, end)
        if taken.count < padTo { taken += [UInt8](repeating: 0, count: padTo - taken.count) }
        return taken
    }
}
