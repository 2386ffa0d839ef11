import CEvent
import Glibc

/// Listening sockets made by hand, because `SO_REUSEPORT` must be set before `bind`
/// (libevent's listener helpers set it too late). Each loop gets its own socket on the same
/// port, and the kernel spreads new connections across them.
enum ListeningSocket {
    /// A non-blocking, close-on-exec socket bound to `host`:`port` and listening.
    ///
    /// `exclusive`: first make sure no other socket listens on that address and port. The
    /// sockets share the port with `SO_REUSEPORT`, so without the check a second process
    /// (of the same user) would bind beside the first one and get half its connections. The
    /// check binds a plain socket (`SO_REUSEADDR` only, so connections in `TIME_WAIT` do not
    /// count) and closes it; the port's own sockets are bound right after.
    ///
    /// - Throws: `TransportError` when the host does not resolve, the address and port are
    ///   in use (with `exclusive`), or the bind fails.
    static func open(host: String, port: Int, backlog: Int, exclusive: Bool = false) throws(TransportError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw TransportError("cannot resolve listen address \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            if exclusive, port != 0, isTaken(info) {
                throw TransportError(
                    "cannot listen on \(host):\(port): address already in use (another process listens there). "
                        + "Stop it, choose another port, or pass --listen-shared to share the port on purpose (a hand-over to a new binary).")
            }
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, socklen_t(MemoryLayout<Int32>.size))
            // Accepted sockets inherit it: replies leave at once instead of waiting on Nagle.
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0, listen(fd, Int32(backlog)) == 0 {
                return fd
            }
            lastError = String(cString: strerror(errno))
            close(fd)
        }
        throw TransportError("cannot listen on \(host):\(port): \(lastError)")
    }

    /// Whether a socket already listens on `info`'s address and port: a plain bind (no
    /// `SO_REUSEPORT`) is refused with `EADDRINUSE`.
    private static func isTaken(_ info: UnsafeMutablePointer<addrinfo>) -> Bool {
        let probe = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { return false }
        defer { close(probe) }
        var one: Int32 = 1
        setsockopt(probe, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        return bind(probe, info.pointee.ai_addr, info.pointee.ai_addrlen) != 0 && errno == EADDRINUSE
    }

    /// The port a bound socket got (the answer to binding port 0).
    static func port(of fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard status == 0 else { return 0 }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
        default:
            return 0
        }
    }
}
