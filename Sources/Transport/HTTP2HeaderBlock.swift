import CNghttp2
import HTTPCodec
import HTTPInterface

/// An answer's header fields for nghttp2: `:status`, then lowercase names with their values,
/// in one byte buffer, handed over as `nghttp2_nv`s (which nghttp2 copies on submit).
/// Connection-specific fields (RFC 9113 §8.2.2) and `content-length` (the transport sets its
/// own) are left out. Reused by a loop's HTTP/2 connections, on its thread.
///
/// Fields whose value is new on every answer (``isUnique(name:)``: `x-request-id`, `ratelimit`)
/// are mostly sent as never indexed (`NGHTTP2_NV_FLAG_NO_INDEX`): HPACK's dynamic table would
/// gain an entry per answer that no later answer uses, pushing out the ones they do (`vary`,
/// `cache-status`, `content-type`, `date`), and nghttp2's encoder finds entries through a map
/// that chains every entry of one name in one bucket, so each answer walked the dozens of
/// request ids the table held (16% of a loop's time at 200 connections, before). The caller
/// lets an answer index them at most once a second per connection (`indexingUnique`), about
/// as often as `date` changes, so that the table keeps an entry of each such name and the
/// other answers send the name as an index, not as text, while such entries stay few.
struct HTTP2HeaderBlock {
    private var bytes: [UInt8] = []
    private var fields: [(name: Range<Int>, value: Range<Int>, unique: Bool)] = []

    /// Starts a block with `:status`.
    mutating func start(status: Int) {
        bytes.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
        let name = bytes.count
        bytes.append(contentsOf: Self.statusName)
        let value = bytes.count
        bytes.append(contentsOf: String(status).utf8)
        fields.append((name..<value, value..<bytes.count, false))
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
        fields.append((nameStart..<valueStart, valueStart..<bytes.count, Self.isUnique(name: bytes[nameStart..<valueStart])))
    }

    /// Adds a stored answer's fields (`HTTP2FieldPairs`: lowercase, filtered when made) as
    /// they are.
    mutating func add(pairs: [UInt8]) {
        HTTP2FieldPairs.forEach(in: pairs) { name, value in
            let nameStart = bytes.count
            bytes.append(contentsOf: pairs[name])
            let valueStart = bytes.count
            bytes.append(contentsOf: pairs[value])
            fields.append((nameStart..<valueStart, valueStart..<bytes.count, Self.isUnique(name: pairs[name])))
        }
    }

    /// Calls `body` with the fields as `nghttp2_nv`s, valid during the call; the unique ones
    /// never indexed unless `indexingUnique`.
    mutating func withNameValues<R>(indexingUnique: Bool, _ body: (UnsafeMutablePointer<nghttp2_nv>, Int) -> R) -> R {
        let fields = self.fields
        return bytes.withUnsafeMutableBufferPointer { raw in
            withUnsafeTemporaryAllocation(of: nghttp2_nv.self, capacity: fields.count) { nvs in
                for (index, field) in fields.enumerated() {
                    nvs[index] = nghttp2_nv(
                        name: raw.baseAddress! + field.name.lowerBound, value: raw.baseAddress! + field.value.lowerBound,
                        namelen: field.name.count, valuelen: field.value.count,
                        flags: UInt8(field.unique && !indexingUnique ? NGHTTP2_NV_FLAG_NO_INDEX.rawValue : NGHTTP2_NV_FLAG_NONE.rawValue))
                }
                return body(nvs.baseAddress!, fields.count)
            }
        }
    }

    /// Whether a field of this (lowercase) name carries a value no other answer repeats.
    static func isUnique(name: ArraySlice<UInt8>) -> Bool {
        name.elementsEqual(requestIDName) || name.elementsEqual(rateLimitName)
    }

    private static let statusName = Array(":status".utf8)
    private static let requestIDName = Array("x-request-id".utf8)
    private static let rateLimitName = Array("ratelimit".utf8)
}
