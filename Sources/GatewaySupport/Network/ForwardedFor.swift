/// Who the client is behind trusted proxies: the right-most address of `X-Forwarded-For`
/// that is not a trusted proxy (never the left-most, which the client itself may have
/// written).
public enum ForwardedFor {
    /// The client of a request from `peer`. Only when `peer` is in `trusted` are the
    /// `X-Forwarded-For` values read (`count` fields, `field(i)` the i-th in order; together
    /// one comma-separated list), from the right: each trusted address is one more proxy, the
    /// first untrusted one is the client. An entry that is no address ends the walk at the
    /// proxy that wrote it; when every entry is trusted, the left-most is the client.
    /// Allocates nothing.
    public static func client(
        peer: IPAddress, trusted: AddressRanges, count: Int, field: (Int) -> UnsafeRawBufferPointer
    ) -> IPAddress {
        guard trusted.contains(peer) else { return peer }
        var current = peer
        var index = count - 1
        while index >= 0 {
            let value = field(index)
            var end = value.count
            while end >= 0 {
                var start = end - 1
                while start >= 0 && value[start] != UInt8(ascii: ",") { start -= 1 }
                let entry = UnsafeRawBufferPointer(rebasing: value[(start + 1)..<max(start + 1, end)])
                if !isBlank(entry) {
                    guard let address = IPAddress.forwarded(entry) else { return current }
                    guard trusted.contains(address) else { return address }
                    current = address
                }
                end = start
            }
            index -= 1
        }
        return current
    }

    private static func isBlank(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.allSatisfy { $0 == 0x20 || $0 == 0x09 }
    }
}
