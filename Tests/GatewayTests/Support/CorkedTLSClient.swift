import COpenSSL
import Foundation
import Glibc
import TestSupport

/// A blocking TLS client made with OpenSSL in the test process, for what `openssl s_client`
/// cannot do: several TLS records in one TCP segment (the socket is corked while they are
/// written), so the server reads them with one `read(2)` and must find the later records in
/// its session, not on the socket. It does not verify the certificate (the tests that use it
/// are about records, not trust). One thread uses it; it owns its socket and session.
final class CorkedTLSClient {
    private let fd: Int32
    private let context: OpaquePointer
    private let ssl: OpaquePointer

    /// Connects to 127.0.0.1:`port` and completes a handshake offering `alpn` (protocol names,
    /// most preferred first); reads time out after `timeout` seconds.
    ///
    /// - Throws: `HTTP2TestError` when the connection or the handshake fails.
    init(port: Int, alpn: [String], timeout: Int = 5) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTP2TestError("socket failed") }
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var limit = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        guard connected == 0, let context = SSL_CTX_new(TLS_client_method()) else {
            Glibc.close(fd)
            throw HTTP2TestError("cannot connect to port \(port)")
        }
        self.context = context
        guard let ssl = SSL_new(context) else {
            SSL_CTX_free(context)
            Glibc.close(fd)
            throw HTTP2TestError("SSL_new failed")
        }
        self.ssl = ssl
        var wire: [UInt8] = []
        for name in alpn { wire += [UInt8(name.utf8.count)] + Array(name.utf8) }
        SSL_set_alpn_protos(ssl, wire, UInt32(wire.count))
        SSL_set_fd(ssl, fd)
        guard SSL_connect(ssl) == 1 else { throw HTTP2TestError("TLS handshake failed") }
    }

    deinit {
        SSL_free(ssl)
        SSL_CTX_free(context)
        Glibc.close(fd)
    }

    /// The protocol ALPN chose, or "" when none.
    var negotiated: String {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data else { return "" }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Writes each of `records` as its own TLS record, all leaving in one TCP segment.
    func send(records: [[UInt8]]) throws {
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_CORK, &on, socklen_t(MemoryLayout<Int32>.size))
        for record in records {
            guard SSL_write(ssl, record, Int32(record.count)) == Int32(record.count) else { throw HTTP2TestError("SSL_write failed") }
        }
        var off: Int32 = 0
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_CORK, &off, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Reads what arrives until `done` says it is enough or the stream ends; throws when a read
    /// times out first.
    func read(until done: ([UInt8]) -> Bool) throws -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while !done(received) {
            let count = SSL_read(ssl, &buffer, Int32(buffer.count))
            if count > 0 {
                received += buffer[0..<Int(count)]
                continue
            }
            if SSL_get_error(ssl, count) == SSL_ERROR_ZERO_RETURN { break }
            throw HTTP2TestError("no more bytes after \(received.count) (read timed out or failed)")
        }
        return received
    }
}
