import CEvent
import Glibc
import Logging
import GatewaySupport

/// Accepts connections on one loop's listening socket, with a plain persistent read event.
///
/// When the process is out of descriptors (`EMFILE`, `ENFILE`) the listener stops for a
/// moment instead of spinning on a socket it cannot accept from, and logs at most one line
/// a second.
///
/// Invariant: created and used only on its server's loop thread (or before the loop runs).
final class ConnectionListener {
    private let socket: Int32
    private unowned let server: ServerLoop
    /// Owned; freed in `close`.
    private var acceptEvent: OpaquePointer?
    /// Owned; re-enables accepting after a descriptor shortage. Freed in `close`.
    private var resumeTimer: OpaquePointer?
    private var lastShortageLog: Int = 0
    private var suppressedShortages = 0

    /// How long accepting pauses when descriptors run out.
    static let shortagePause = timeval(tv_sec: 0, tv_usec: 100_000)
    /// The most connections taken in one wake-up, so one loop does not starve its others.
    static let acceptBatch = 64

    init(socket: Int32, server: ServerLoop) throws(TransportError) {
        self.socket = socket
        self.server = server
        // Unmanaged: passUnretained. The ServerLoop keeps this listener until `close`, which
        // frees both events first, so the callbacks never see a dangling pointer.
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let acceptEvent = event_new(server.loop.base, socket, Int16(EV_READ | EV_PERSIST), listenerAcceptCallback, context),
            let resumeTimer = event_new(server.loop.base, -1, 0, listenerResumeCallback, context)
        else { throw TransportError("event_new failed for the listener") }
        self.acceptEvent = acceptEvent
        self.resumeTimer = resumeTimer
        event_add(acceptEvent, nil)
    }

    /// Stops accepting and closes the listening socket. Idempotent.
    func close() {
        guard let acceptEvent else { return }
        event_free(acceptEvent)
        self.acceptEvent = nil
        if let resumeTimer { event_free(resumeTimer) }
        resumeTimer = nil
        Glibc.close(socket)
    }

    fileprivate func acceptReady() {
        for _ in 0..<Self.acceptBatch {
            var address = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    accept4(socket, $0, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
                }
            }
            if fd < 0 {
                switch errno {
                case EAGAIN, EINTR, ECONNABORTED: return
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: pauseForShortage(errno)
                default: server.core.logger.warning("accept failed", metadata: ["error": .string(String(cString: strerror(errno)))], source: "Gateway")
                }
                return
            }
            server.accepted(fd, peer: Self.describe(address), address: Self.address(address))
        }
    }

    private func pauseForShortage(_ code: Int32) {
        guard let acceptEvent, let resumeTimer else { return }
        event_del(acceptEvent)
        var pause = Self.shortagePause
        event_add(resumeTimer, &pause)
        var now = timeval()
        event_base_gettimeofday_cached(server.loop.base, &now)
        if now.tv_sec != lastShortageLog {
            lastShortageLog = now.tv_sec
            server.core.logger.error(
                "cannot accept connections: out of descriptors; pausing",
                metadata: ["error": .string(String(cString: strerror(code))), "suppressed": .stringConvertible(suppressedShortages)], source: "Gateway")
            suppressedShortages = 0
        } else {
            suppressedShortages += 1
        }
    }

    fileprivate func resume() {
        guard let acceptEvent else { return }
        event_add(acceptEvent, nil)
        acceptReady()
    }

    /// Writes `response` to a socket the server will not serve, without waiting, then
    /// closes it (a refusal: the connection cap).
    static func refuse(_ fd: Int32, response: [UInt8]) {
        _ = response.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
        Glibc.shutdown(fd, Int32(SHUT_WR))
        Glibc.close(fd)
    }

    /// The text `inet_ntop` wrote, up to its NUL.
    private static func string(_ text: [CChar]) -> String {
        String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A peer's address (0.0.0.0 for a family that has none, such as a Unix socket).
    static func address(_ storage: sockaddr_storage) -> IPAddress {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { IPAddress(ipv4: UInt32(bigEndian: $0.pointee.sin_addr.s_addr)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    withUnsafeBytes(of: address.pointee.sin6_addr) { bytes in
                        IPAddress(
                            high: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 0, as: UInt64.self)),
                            low: UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
                    }
                }
            }
        default:
            return IPAddress(ipv4: 0)
        }
    }

    /// `address:port` of a peer (IPv6 addresses in brackets).
    static func describe(_ storage: sockaddr_storage) -> String {
        var storage = storage
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var raw = address.pointee.sin_addr
                    inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
                    return "\(Self.string(text)):\(UInt16(bigEndian: address.pointee.sin_port))"
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    var raw = address.pointee.sin6_addr
                    inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count))
                    return "[\(Self.string(text))]:\(UInt16(bigEndian: address.pointee.sin6_port))"
                }
            }
        default:
            return "unknown"
        }
    }
}

/// The listening socket's read callback, on the loop thread. `context` is the
/// ConnectionListener, unretained (see its init).
private func listenerAcceptCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<ConnectionListener>.fromOpaque(context!).takeUnretainedValue().acceptReady()
}

/// The pause timer's callback, on the loop thread; `context` as above.
private func listenerResumeCallback(_: Int32, _: Int16, _ context: UnsafeMutableRawPointer?) {
    Unmanaged<ConnectionListener>.fromOpaque(context!).takeUnretainedValue().resume()
}
