import Foundation
import Glibc

/// A blocking HTTP/1.1 client over a plain socket, for tests that must control every byte
/// sent (smuggling shapes, pipelining, keep-alive) and see every byte received.
/// One thread uses an instance at a time.
public final class RawHTTPClient: @unchecked Sendable {
    public struct Response: Sendable {
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        public func headerValues(_ name: String) -> [String] {
            headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
        }

        public var text: String { String(decoding: body, as: UTF8.self) }

        public func json() throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] ?? [:]
        }
    }

    public struct ClientError: Error, CustomStringConvertible {
        public let description: String

        public init(description: String) {
            self.description = description
        }
    }

    private var fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`. `timeout` bounds every receive and every send;
    /// `receiveBufferBytes` sets `SO_RCVBUF` before connecting (a small window, for tests of
    /// a client that reads slowly or not at all).
    public init(port: Int, timeout: Double = 10, receiveBufferBytes: Int? = nil) throws {
        fd = try Self.connect(port: port, receiveBufferBytes: receiveBufferBytes)
        Self.setTimeouts(fd, timeout)
    }

    /// A TCP socket connected to 127.0.0.1:`port`, with `TCP_NODELAY` (each `send` leaves at
    /// once: tests that split a request mean the split), and `SO_RCVBUF` set before connecting
    /// when `receiveBufferBytes` is given (a small window, for tests of a client that reads
    /// slowly or not at all). The caller owns it.
    public static func connect(port: Int, receiveBufferBytes: Int? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError(description: "socket failed") }
        if var size = receiveBufferBytes.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard status == 0 else {
            let error = ClientError(description: "connect failed: \(String(cString: strerror(errno)))")
            Glibc.close(fd)
            throw error
        }
        var noDelay: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &noDelay, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    /// Wraps a connected stream socket (a socket pair's end, say); the client owns it.
    public init(connectedSocket: Int32, timeout: Double = 10) {
        fd = connectedSocket
        Self.setTimeouts(fd, timeout)
    }

    private static func setTimeouts(_ fd: Int32, _ timeout: Double) {
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Closes the socket now; with `reset`, abortively (`SO_LINGER` 0: the peer sees RST).
    public func close(reset: Bool = false) {
        guard fd >= 0 else { return }
        if reset {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        }
        Glibc.close(fd)
        fd = -1
    }

    /// Half-closes: the server sees end of stream, and answers can still be read.
    public func finishSending() {
        guard fd >= 0 else { return }
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw ClientError(description: "send failed: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// A GET (or other bodiless request) with `Host` and the given extra header lines.
    public func request(_ method: String = "GET", _ target: String, headers: [String] = [], body: [UInt8] = []) throws -> Response {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for line in headers { head += line + "\r\n" }
        if !body.isEmpty || method == "POST" || method == "PATCH" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try send(Array(head.utf8) + body)
        return try readResponse(method: method)
    }

    /// Reads one response; `method` HEAD means no body follows the headers.
    public func readResponse(method: String = "GET") throws -> Response {
        let headEnd = try readUntil([13, 10, 13, 10])
        let head = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw ClientError(description: "bad status line in \(head)")
        }
        let headers = lines.compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = Response(status: status, headers: headers, body: [])
        if method == "HEAD" || status == 204 || status == 304 { return response }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            while true {
                let lineEnd = try readUntil([13, 10])
                let size = Int(String(decoding: buffer[..<lineEnd], as: UTF8.self), radix: 16) ?? 0
                buffer.removeFirst(lineEnd + 2)
                if size == 0 {
                    _ = try readUntil([13, 10])
                    buffer.removeFirst(2)
                    break
                }
                try fill(size + 2)
                response.body += buffer[..<size]
                buffer.removeFirst(size + 2)
            }
        } else if let length = response.header("Content-Length").flatMap(Int.init) {
            try fill(length)
            response.body = Array(buffer[..<length])
            buffer.removeFirst(length)
        } else {
            while try receive() > 0 {}
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// Exactly `count` bytes, as they arrived (an interim `100 Continue`, say).
    public func readBytes(_ count: Int) throws -> [UInt8] {
        try fill(count)
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    /// Reads and discards everything until the server ends the connection (end of stream
    /// or reset); returns how many bytes that was, with those already buffered. Throws when
    /// the receive timeout passes first.
    public func drainUntilClosed() throws -> Int {
        var total = buffer.count
        buffer = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if received > 0 {
                total += received
                continue
            }
            if received == 0 || errno == ECONNRESET { return total }
            throw ClientError(description: "recv failed after \(total) bytes: \(String(cString: strerror(errno)))")
        }
    }

    /// Whether the server closed the connection (reads end) within the receive timeout.
    public func isClosedByPeer() -> Bool {
        guard buffer.isEmpty else { return false }
        return (try? receive()) == 0
    }

    private func readUntil(_ marker: [UInt8]) throws -> Int {
        var searchFrom = 0
        while true {
            if buffer.count >= marker.count {
                for index in searchFrom...(buffer.count - marker.count) where Array(buffer[index..<(index + marker.count)]) == marker {
                    return index
                }
                searchFrom = buffer.count - marker.count + 1
            }
            guard try receive() > 0 else { throw ClientError(description: "connection closed before \(marker)") }
        }
    }

    private func fill(_ count: Int) throws {
        while buffer.count < count {
            guard try receive() > 0 else { throw ClientError(description: "connection closed with \(buffer.count) of \(count) bytes") }
        }
    }

    @discardableResult
    private func receive() throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if received < 0 {
            if errno == ECONNRESET { return 0 }
            throw ClientError(description: "recv failed: \(String(cString: strerror(errno)))")
        }
        buffer += chunk[..<received]
        return received
    }
}
