import Glibc

/// Host names to the addresses a connection would use, with the system resolver
/// (`getaddrinfo`, which also accepts numeric addresses). It blocks: call it off the event
/// loops (image fetches run it on a global queue, then hop back to their loop).
enum AddressResolver {
    /// Every address `host` resolves to for TCP (IPv4 and IPv6), deduplicated, in the
    /// resolver's order; empty when it does not resolve.
    static func resolve(_ host: String) -> [ResolvedAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [ResolvedAddress] = []
        var entry = list
        while let info = entry {
            if let address = ResolvedAddress(info.pointee.ai_addr), !addresses.contains(address) {
                addresses.append(address)
            }
            entry = info.pointee.ai_next
        }
        return addresses
    }
}

extension ResolvedAddress {
    /// The address in `socket` (IPv4 or IPv6); nil for other families.
    init?(_ socket: UnsafeMutablePointer<sockaddr>?) {
        guard let socket else { return nil }
        switch Int32(socket.pointee.sa_family) {
        case AF_INET:
            let bytes = socket.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin_addr) { [UInt8]($0) }
            }
            self.init(bytes: bytes)
        case AF_INET6:
            let bytes = socket.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { [UInt8]($0) }
            }
            self.init(bytes: bytes)
        default:
            return nil
        }
    }
}
