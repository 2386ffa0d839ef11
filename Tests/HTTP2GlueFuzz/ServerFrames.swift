import CNghttp2

/// The server's side of one conversation, read frame by frame as it arrives and checked
/// against what RFC 9113 and the gateway's contract say an answer is. A failed check is a
/// finding: it traps with what it saw.
///
/// Checks: the first frame is the server's SETTINGS; no frame is longer than the client
/// allowed; nothing on a stream the client did not open (no push; when the framing is intact);
/// nothing inside another stream's header block; each header block decodes (HPACK, nghttp2's
/// own inflater as the reader) to lowercase names and values without NUL, CR or LF, an
/// answer's first field a three-digit `:status` (no 101: RFC 9113 §8.6), no
/// connection-specific field (§8.2.2); a final answer other than 204 and 304 has one
/// `content-length`; DATA only after a final answer's HEADERS and never after the stream's end;
/// an ended answer to a request operation's stream carries as many bytes as its
/// `content-length` says (none for `HEAD`, a 204 or a 304).
///
/// Owns a `nghttp2_hd_inflater`, freed with it; one thread.
final class ServerFrames {
    private let script: ClientScript
    private var buffer: [UInt8] = []
    private var inflater: OpaquePointer?
    private(set) var count = 0
    private(set) var sawEndMark = false
    /// A GOAWAY with an error: the server reads no more frames that would be answered.
    private(set) var sawFatalGoaway = false
    var closed = false
    /// Streams the server ended (END_STREAM) or reset.
    private(set) var finished: Set<UInt32> = []
    /// The header block being read: its stream, whether it began with END_STREAM, its bytes.
    private var pendingBlock: (stream: UInt32, endStream: Bool, bytes: [UInt8])?
    private var streams: [UInt32: StreamState] = [:]

    struct StreamState {
        var status: Int?
        var contentLength: Int?
        var dataBytes = 0
        var ended = false
    }

    var answeredStreams: Int { streams.values.count(where: { $0.status != nil }) }

    init(script: ClientScript) {
        self.script = script
        var made: OpaquePointer?
        precondition(nghttp2_hd_inflate_new(&made) == 0)
        inflater = made
    }

    deinit {
        nghttp2_hd_inflate_del(inflater)
    }

    func take(_ bytes: ArraySlice<UInt8>) {
        buffer += bytes
        var start = 0
        while buffer.count - start >= 9 {
            let length = Int(buffer[start]) << 16 | Int(buffer[start + 1]) << 8 | Int(buffer[start + 2])
            guard buffer.count - start >= 9 + length else { break }
            let type = buffer[start + 3]
            let flags = buffer[start + 4]
            let stream = (UInt32(buffer[start + 5]) << 24 | UInt32(buffer[start + 6]) << 16 | UInt32(buffer[start + 7]) << 8 | UInt32(buffer[start + 8])) & 0x7fff_ffff
            frame(type: type, flags: flags, stream: stream, payload: buffer[(start + 9)..<(start + 9 + length)])
            start += 9 + length
        }
        buffer.removeFirst(start)
    }

    private func fail(_ what: String) -> Never {
        fatalError("http2-glue-fuzz: \(what)")
    }

    private func frame(type: UInt8, flags: UInt8, stream: UInt32, payload: ArraySlice<UInt8>) {
        if count == 0, type != 4 || flags & 1 != 0 { fail("the server's first frame is type \(type), not its SETTINGS") }
        count += 1
        if let limit = script.maxFrameSize, payload.count > limit { fail("a frame of \(payload.count) bytes, over the client's \(limit)") }
        if let pending = pendingBlock, type != 9 || stream != pending.stream {
            fail("type \(type) on stream \(stream) inside a header block of stream \(pending.stream)")
        }
        if stream != 0, stream % 2 == 0 { fail("type \(type) on even stream \(stream)") }
        if stream != 0, script.framingIntact, !script.opened.contains(stream) { fail("type \(type) on stream \(stream), which the client never opened") }
        switch type {
        case 0: data(flags: flags, stream: stream, payload: payload)
        case 1:
            var block = payload
            if flags & 0x8 != 0 { block = unpadded(block) }
            if flags & 0x20 != 0 { block = block.dropFirst(5) }
            headerBlock(stream: stream, endStream: flags & 1 != 0, endHeaders: flags & 4 != 0, block)
        case 3: finished.insert(stream)
        case 5: fail("PUSH_PROMISE on stream \(stream)")
        case 6:
            if flags & 1 != 0, payload.elementsEqual(Conversation.endMark) { sawEndMark = true }
        case 7:
            let code = payload.count >= 8 ? Array(payload.dropFirst(4).prefix(4)) : []
            if code != [0, 0, 0, 0] { sawFatalGoaway = true }
        case 9:
            guard let pending = pendingBlock, pending.stream == stream else { fail("CONTINUATION on stream \(stream) outside a header block") }
            pendingBlock = nil
            headerBlock(stream: stream, endStream: pending.endStream, endHeaders: flags & 4 != 0, pending.bytes[...] + payload)
        default: break
        }
    }

    private func unpadded(_ payload: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let padLength = payload.first, Int(padLength) < payload.count else { fail("a padded frame with a bad pad length") }
        return payload.dropFirst().dropLast(Int(padLength))
    }

    private func data(flags: UInt8, stream: UInt32, payload: ArraySlice<UInt8>) {
        guard var state = streams[stream], state.status != nil else { fail("DATA on stream \(stream) before its answer's HEADERS") }
        if state.ended { fail("DATA on stream \(stream) after its end") }
        state.dataBytes += flags & 0x8 != 0 ? unpadded(payload).count : payload.count
        if flags & 1 != 0 {
            state.ended = true
            finished.insert(stream)
        }
        streams[stream] = state
        check(stream, state)
    }

    private func headerBlock(stream: UInt32, endStream: Bool, endHeaders: Bool, _ block: ArraySlice<UInt8>) {
        guard endHeaders else {
            pendingBlock = (stream, endStream, Array(block))
            return
        }
        if stream == 0 { fail("HEADERS on stream 0") }
        let fields = inflate(block)
        var state = streams[stream] ?? StreamState()
        if state.ended { fail("HEADERS on stream \(stream) after its end") }
        guard let first = fields.first else { fail("an empty header block on stream \(stream)") }
        for (name, value) in fields {
            if name.contains(where: { $0.isUppercase }) { fail("field name \(name) not lowercase") }
            if value.utf8.contains(where: { $0 == 0 || $0 == 0x0a || $0 == 0x0d }) { fail("field \(name) with NUL, CR or LF in its value") }
            if ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade"].contains(name) {
                fail("connection-specific field \(name) on stream \(stream)")
            }
        }
        if state.status == nil {
            guard first.0 == ":status", first.1.utf8.count == 3, let status = Int(first.1), (100...599).contains(status), status != 101 else {
                fail("stream \(stream)'s answer starts with \(first.0): \(first.1)")
            }
            if fields.dropFirst().contains(where: { $0.0.hasPrefix(":") }) { fail("a pseudo-field after :status on stream \(stream)") }
            if status >= 200 {
                state.status = status
                let lengths = fields.filter { $0.0 == "content-length" }
                if lengths.count > 1 { fail("\(lengths.count) content-length fields on stream \(stream)") }
                if lengths.isEmpty, status != 204, status != 304 { fail("a \(status) answer without content-length on stream \(stream)") }
                state.contentLength = lengths.first.flatMap { Int($0.1) }
            } else if endStream {
                fail("an interim answer ending stream \(stream)")
            }
        } else if fields.contains(where: { $0.0.hasPrefix(":") }) || !endStream {
            fail("second header block on stream \(stream) is not trailers")
        }
        if endStream {
            state.ended = true
            finished.insert(stream)
        }
        streams[stream] = state
        check(stream, state)
    }

    /// An ended answer to a well-formed request has the body its `content-length` announced.
    private func check(_ stream: UInt32, _ state: StreamState) {
        guard let status = state.status, let method = script.methods[stream] else { return }
        let bodiless = method == "HEAD" || status == 204 || status == 304
        if bodiless, state.dataBytes > 0 { fail("\(state.dataBytes) body bytes in a \(method) answer \(status) on stream \(stream)") }
        guard let length = state.contentLength, !bodiless else { return }
        if state.dataBytes > length { fail("stream \(stream): \(state.dataBytes) body bytes, content-length \(length)") }
        if state.ended, state.dataBytes != length { fail("stream \(stream) ended after \(state.dataBytes) body bytes, content-length \(length)") }
    }

    private func inflate(_ block: ArraySlice<UInt8>) -> [(String, String)] {
        var fields: [(String, String)] = []
        let bytes = Array(block)
        var offset = 0
        while true {
            var pair = nghttp2_nv()
            var flags: Int32 = 0
            let used = bytes.withUnsafeBufferPointer { bytes in
                nghttp2_hd_inflate_hd2(inflater, &pair, &flags, bytes.baseAddress.map { $0 + offset }, bytes.count - offset, 1)
            }
            if used < 0 { fail("the server's header block does not decode: \(String(cString: nghttp2_strerror(Int32(used))))") }
            offset += used
            let emitted = flags & Int32(NGHTTP2_HD_INFLATE_EMIT.rawValue) != 0
            if emitted {
                fields.append((
                    String(decoding: UnsafeBufferPointer(start: pair.name, count: pair.namelen), as: UTF8.self),
                    String(decoding: UnsafeBufferPointer(start: pair.value, count: pair.valuelen), as: UTF8.self)
                ))
            }
            if flags & Int32(NGHTTP2_HD_INFLATE_FINAL.rawValue) != 0 {
                nghttp2_hd_inflate_end_headers(inflater)
                return fields
            }
            if used == 0 && !emitted { fail("the server's header block ends inside a field") }
        }
    }
}
