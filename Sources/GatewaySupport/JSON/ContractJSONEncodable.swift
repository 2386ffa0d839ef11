/// A contract value that writes itself as deterministic JSON.
///
/// The same value always gives the same bytes (fixed key order, exact decimals, no
/// whitespace), so the gateway can compute a strong `ETag` over ``jsonBytes()``.
public protocol ContractJSONEncodable: Sendable {
    /// Appends this value as one JSON value.
    func write(to writer: inout JSONWriter)
}

extension ContractJSONEncodable {
    /// This value as compact UTF-8 JSON.
    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 4096)
        write(to: &writer)
        return writer.bytes
    }
}
