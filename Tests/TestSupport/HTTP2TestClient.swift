import CNghttp2
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/2 client for tests: nghttp2's client session over a plain socket to
/// 127.0.0.1 (h2c with prior knowledge). Requests are submitted together and run until each
/// has its answer (or its reset); what the server sent at the connection level (SETTINGS,
/// GOAWAY) is kept for assertions. In `raw` mode (for tests that write frames by hand, which
/// the session does not know of) what the server sends is read frame by frame here instead,
/// and only GOAWAY is kept. One thread at a time.
public final class HTTP2TestClient: @unchecked Sendable {
    public struct Request: Sendable {
        public var method: String
        public var path: String
        public var headers: [(String, String)]
        public var body: [UInt8]
        /// Sent in a HEADERS frame after the body, which ends the stream (needs a body).
        public var trailers: [(String, String)]

        public init(
            _ method: String = "GET", _ path: String, headers: [(String, String)] = [], body: [UInt8] = [], trailers: [(String, String)] = []
        ) {
            self.method = method
            self.path = path
            self.headers = headers
            self.body = body
            self.trailers = trailers
        }
    }

    public struct Response: Sendable {
        public var status = 0
        /// In the order received; names lowercase, as HTTP/2 sends them.
        public var headers: [(name: String, value: String)] = []
        public var body: [UInt8] = []
        /// Set when the server reset the stream instead (RST_STREAM's error code).
        public var resetCode: UInt32?

        public func header(_ name: String) -> String? {
            headers.first { $0.name == name }?.value
        }

        public var text: String { String(decoding: body, as: UTF8.self) }
    }

    public let fd: Int32
    /// Owned (`nghttp2_session *`); deleted in deinit.
    private var session: OpaquePointer?
    private var responses: [Int32: Response] = [:]
    private var open: Set<Int32> = []
    private var bodies: [Int32: (bytes: [UInt8], offset: Int)] = [:]
    private var trailers: [Int32: [(String, String)]] = [:]
    /// The server's SETTINGS, as received.
    public private(set) var serverSettings: [Int32: UInt32] = [:]
    /// The server's GOAWAY, when one came.
    public private(set) var goaway: (lastStreamID: Int32, errorCode: UInt32)?
    /// Raw mode: the streams the server reset, with RST_STREAM's error code.
    public private(set) var rawResets: [Int32: UInt32] = [:]
    /// Raw mode: DATA bytes received per stream.
    public private(set) var rawDataBytes: [Int32: Int] = [:]
    /// The stream of every DATA frame received, in order.
    public private(set) var dataFrameStreams: [Int32] = []
    /// The socket ended (EOF or error).
    public private(set) var ended = false
    /// Raw mode: the server's bytes are parsed here, not by the session.
    private let raw: Bool
    private var rawInput: [UInt8] = []

    /// Connects to 127.0.0.1:`port` and sends the preface and an empty SETTINGS.
    public init(port: Int, raw: Bool = false) throws {
        self.raw = raw
        fd = try RawHTTPClient.connect(port: port)
        var callbacks: OpaquePointer?
        nghttp2_session_callbacks_new(&callbacks)
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) { _, frame, name, nameLength, value, valueLength, _, user in
            let client = HTTP2TestClient.from(user)
            let id = frame!.pointee.hd.stream_id
            let name = String(decoding: UnsafeRawBufferPointer(start: name, count: nameLength), as: UTF8.self)
            let value = String(decoding: UnsafeRawBufferPointer(start: value, count: valueLength), as: UTF8.self)
            if name == ":status" {
                client.responses[id, default: Response()].status = Int(value) ?? 0
            } else {
                client.responses[id, default: Response()].headers.append((name, value))
            }
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, id, data, length, user in
            HTTP2TestClient.from(user).responses[id, default: Response()].body.append(contentsOf: UnsafeRawBufferPointer(start: data, count: length))
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, id, code, user in
            let client = HTTP2TestClient.from(user)
            if code != 0 { client.responses[id, default: Response()].resetCode = code }
            client.open.remove(id)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, user in
            let client = HTTP2TestClient.from(user)
            let header = frame!.pointee.hd
            if header.type == UInt8(NGHTTP2_DATA.rawValue) {
                client.dataFrameStreams.append(header.stream_id)
            } else if header.type == UInt8(NGHTTP2_GOAWAY.rawValue) {
                client.goaway = (frame!.pointee.goaway.last_stream_id, frame!.pointee.goaway.error_code)
            } else if header.type == UInt8(NGHTTP2_SETTINGS.rawValue), header.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0 {
                let settings = frame!.pointee.settings
                for index in 0..<settings.niv {
                    client.serverSettings[settings.iv[index].settings_id] = settings.iv[index].value
                }
            }
            return 0
        }
        // Unmanaged: passUnretained; the session is deleted in deinit, before this object goes.
        nghttp2_session_client_new(&session, callbacks, Unmanaged.passUnretained(self).toOpaque())
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil, 0)
    }

    deinit {
        nghttp2_session_del(session)
        close(fd)
    }

    fileprivate static func from(_ user: UnsafeMutableRawPointer?) -> HTTP2TestClient {
        Unmanaged<HTTP2TestClient>.fromOpaque(user!).takeUnretainedValue()
    }

    /// Sends `requests` on new streams at once and waits (up to `timeout`) for every answer.
    /// - Throws: when the connection ends first or the time runs out.
    public func send(_ requests: [Request], timeout: Duration = .seconds(10)) throws -> [Response] {
        var ids: [Int32] = []
        for request in requests {
            var fields: [(String, String)] = [(":method", request.method), (":scheme", "http"), (":authority", "127.0.0.1"), (":path", request.path)]
            fields += request.headers
            let id = Self.withNameValues(fields) { nvs, count -> Int32 in
                if request.body.isEmpty { return nghttp2_submit_request(session, nil, nvs, count, nil, nil) }
                var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: { session, id, buffer, length, flags, _, user in
                    let client = HTTP2TestClient.from(user)
                    guard let pending = client.bodies[id] else { return 0 }
                    let count = min(length, pending.bytes.count - pending.offset)
                    pending.bytes.withUnsafeBytes { UnsafeMutableRawPointer(buffer!).copyMemory(from: $0.baseAddress! + pending.offset, byteCount: count) }
                    client.bodies[id]!.offset += count
                    if client.bodies[id]!.offset == pending.bytes.count {
                        flags!.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
                        if let trailers = client.trailers.removeValue(forKey: id) {
                            // The trailers' HEADERS ends the stream instead of the last DATA.
                            flags!.pointee |= NGHTTP2_DATA_FLAG_NO_END_STREAM.rawValue
                            _ = HTTP2TestClient.withNameValues(trailers) { nvs, count in nghttp2_submit_trailer(session, id, nvs, count) }
                        }
                    }
                    return count
                })
                return nghttp2_submit_request(session, nil, nvs, count, &provider, nil)
            }
            guard id > 0 else { throw HTTP2TestError("submit_request failed: \(id)") }
            if !request.body.isEmpty { bodies[id] = (request.body, 0) }
            if !request.trailers.isEmpty { trailers[id] = request.trailers }
            open.insert(id)
            ids.append(id)
        }
        try run(until: { ids.allSatisfy { !self.open.contains($0) } }, timeout: timeout)
        return ids.map { responses.removeValue(forKey: $0) ?? Response() }
    }

    /// One GET.
    public func get(_ path: String, headers: [(String, String)] = []) throws -> Response {
        try send([Request("GET", path, headers: headers)])[0]
    }

    /// Writes what the session has and reads until `done` (or the socket ends, or time runs out).
    public func run(until done: () -> Bool, timeout: Duration = .seconds(10)) throws {
        let deadline = ContinuousClock.now + timeout
        while !done() {
            try flush()
            if done() { return }
            guard !ended else { throw HTTP2TestError("the connection ended") }
            let left = deadline - .now
            guard left > .zero else { throw HTTP2TestError("timed out") }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(min(1000, max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))))
            guard ready > 0 else { continue }
            try receive()
        }
        try flush()
    }

    /// Sends what the session has queued, in one write (as a client's event loop sends what
    /// one turn made: the requests submitted together arrive together).
    public func flush() throws {
        var pending: [UInt8] = []
        while true {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            guard count > 0 else { break }
            pending.append(contentsOf: UnsafeRawBufferPointer(start: data, count: count))
        }
        try pending.withUnsafeBytes { try writeAll($0) }
    }

    /// Writes raw bytes (frames made by hand) to the socket.
    public func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if written <= 0 { throw HTTP2TestError("write failed: \(errno)") }
            offset += written
        }
    }

    /// Reads once and hands the bytes to the session.
    private func receive() throws {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 {
            ended = true
            return
        }
        if raw { return buffer.withUnsafeBytes { parseRaw(UnsafeRawBufferPointer(rebasing: $0[0..<count])) } }
        let used = buffer.withUnsafeBytes { nghttp2_session_mem_recv(session, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count) }
        if used < 0 { throw HTTP2TestError("the server's frames are invalid: \(used)") }
    }

    /// Reads until the server closes the connection or `timeout` passes; whether it closed.
    /// Writes that fail meanwhile (the server stopped reading) are ignored: what it sent
    /// last, a GOAWAY above all, is read.
    public func waitForEnd(timeout: Duration = .seconds(5)) -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !ended && ContinuousClock.now < deadline {
            if !raw { try? flush() }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            try? receive()
        }
        return ended
    }

    /// Raw mode: keeps whole frames' GOAWAY (type 7: last stream id, error code).
    private func parseRaw(_ bytes: UnsafeRawBufferPointer) {
        rawInput.append(contentsOf: bytes)
        var offset = 0
        while rawInput.count - offset >= 9 {
            let length = Int(rawInput[offset]) << 16 | Int(rawInput[offset + 1]) << 8 | Int(rawInput[offset + 2])
            guard rawInput.count - offset >= 9 + length else { break }
            func word(_ at: Int) -> UInt32 {
                UInt32(rawInput[at]) << 24 | UInt32(rawInput[at + 1]) << 16 | UInt32(rawInput[at + 2]) << 8 | UInt32(rawInput[at + 3])
            }
            let payload = offset + 9
            let stream = Int32(bitPattern: word(offset + 5) & 0x7fff_ffff)
            switch rawInput[offset + 3] {
            case 7 where length >= 8: goaway = (Int32(bitPattern: word(payload) & 0x7fff_ffff), word(payload + 4))
            case 3 where length == 4: rawResets[stream] = word(payload)
            case 0: rawDataBytes[stream, default: 0] += length
            default: break
            }
            offset += 9 + length
        }
        rawInput.removeFirst(offset)
    }

    private static func withNameValues<R>(_ fields: [(String, String)], _ body: (UnsafePointer<nghttp2_nv>, Int) -> R) -> R {
        var storage: [[UInt8]] = []
        for (name, value) in fields {
            storage.append(Array(name.utf8))
            storage.append(Array(value.utf8))
        }
        return withPointers(storage, 0, []) { pointers in
            var nvs: [nghttp2_nv] = []
            for index in 0..<fields.count {
                nvs.append(nghttp2_nv(
                    name: pointers[2 * index], value: pointers[2 * index + 1], namelen: storage[2 * index].count,
                    valuelen: storage[2 * index + 1].count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
            }
            return nvs.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
        }
    }

    private static func withPointers<R>(
        _ arrays: [[UInt8]], _ index: Int, _ pointers: [UnsafeMutablePointer<UInt8>], _ body: ([UnsafeMutablePointer<UInt8>]) -> R
    ) -> R {
        guard index < arrays.count else { return body(pointers) }
        var array = arrays[index]
        if array.isEmpty { array = [0] }
        return array.withUnsafeMutableBufferPointer { withPointers(arrays, index + 1, pointers + [$0.baseAddress!], body) }
    }
}

public struct HTTP2TestError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
