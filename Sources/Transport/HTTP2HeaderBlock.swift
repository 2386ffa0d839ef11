import CNghttp2
import HTTPCodec
import HTTPInterface

/// An answer's header fields for nghttp2: `:status`, then lowercase names with their values,
/// in one byte buffer, handed over as `nghttp2_nv`s (which nghttp2 copies on submit).
/// Connection-specific fields (RFC 9113 §8.2.2) and `content-length` (the transport sets its
/// own) are left out. Reused by a loop's HTTP/2 connections, on its thread.
struct HTTP2HeaderBlock {
    private var bytes: [UInt8] = []
    private var fields: [(name: Range<Int>, value: Range<Int>)] = []

    /// Starts a block with `:status`.
    mutating func start(status: Int) {
        bytes.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
        let name = bytes.count
        bytes.append(contentsOf: Self.statusName)
        let value = bytes.count
        bytes.append(contentsOf: String(status).utf8)
        fields.append((name..<value, value..<bytes.count))
    }

    /// Adds a field of the answer, its name lowercased; fields HTTP/2 does not carry and
    /// `content-length` are skipped.
    mutating func add<Name: Collection<UInt8>, Value: Collection<UInt8>>(name: Name, value: Value) {
        add(name: name, value: value, filtered: true)
    }

    /// Adds a field the transport sets itself (`date`, `content-length`), unfiltered; `name`
    /// must be lowercase.
    mutating func addOwn<Name: Collection<UInt8>, Value: Collection<UInt8>>(name: Name, value: Value) {
        add(name: name, value: value, filtered: false)
    }

    private mutating func add<Name: Collection<UInt8>, Value: Collection<UInt8>>(name: Name, value: Value, filtered: Bool) {
        let nameStart = bytes.count
        for byte in name { bytes.append(ASCII.lower(byte)) }
        let valueStart = bytes.count
        if filtered && HTTP2FieldPairs.isLeftOut(bytes[nameStart..<valueStart]) {
            bytes.removeSubrange(nameStart...)
            return
        }
        bytes.append(contentsOf: value)
        fields.append((nameStart..<valueStart, valueStart..<bytes.count))
    }

    /// Adds a stored answer's fields (`HTTP2FieldPairs`: lowercase, filtered when made) as
    /// they are.
    mutating func add(pairs: [UInt8]) {
        HTTP2FieldPairs.forEach(in: pairs) { name, value in
            let nameStart = bytes.count
            bytes.append(contentsOf: pairs[name])
            let valueStart = bytes.count
            bytes.append(contentsOf: pairs[value])
            fields.append((nameStart..<valueStart, valueStart..<bytes.count))
        }
    }

    /// Calls `body` with the fields as `nghttp2_nv`s, valid during the call.
    mutating func withNameValues<R>(_ body: (UnsafeMutablePointer<nghttp2_nv>, Int) -> R) -> R {
        let fields = self.fields
        return bytes.withUnsafeMutableBufferPointer { raw in
            withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: fields.count) { nvs in
                for (index, field) in fields.enumerated() {
                    nvs[index] = nghttp2_nv(
                        name: raw.baseAddress! + field.name.lowerBound, value: raw.baseAddress! + field.value.lowerBound,
                        namelen: field.name.count, valuelen: field.value.count, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
                }
                return body(nvs.baseAddress!, fields.count)
            }
        }
    }

    private static let statusName = Array(":status".utf8)
}
