import HTTPCodec

/// Protocol Buffers' wire format, written by hand for the few OTLP messages the exporter sends
/// (`OTLPProtobuf`): varints, fixed-width numbers, and length-delimited fields whose length is
/// put in front once their content is written. Checked against `opentelemetry-proto`'s
/// decoder (the OTLP receiver in `Tests/Tracing`).
struct ProtobufWriter {
    private(set) var bytes: [UInt8]

    init(capacity: Int = 4096) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    enum WireType: UInt8 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    @inline(__always)
    mutating func tag(_ field: Int, _ type: WireType) {
        varint(UInt64(field) << 3 | UInt64(type.rawValue))
    }

    @inline(__always)
    mutating func varint(_ value: UInt64) {
        if value < 0x80 {
            bytes.append(UInt8(value))
            return
        }
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// A varint field, left out at 0 (proto3's default).
    mutating func varintField(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .varint)
        varint(value)
    }

    mutating func fixed64Field(_ field: Int, _ value: UInt64) {
        guard value != 0 else { return }
        tag(field, .fixed64)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func fixed32Field(_ field: Int, _ value: UInt32) {
        guard value != 0 else { return }
        tag(field, .fixed32)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    /// A string field, left out when empty.
    mutating func stringField(_ field: Int, _ value: String) {
        guard !value.isEmpty else { return }
        tag(field, .lengthDelimited)
        varint(UInt64(value.utf8.count))
        append(value)
    }

    /// A string's UTF-8 bytes, copied as one block.
    @inline(__always)
    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// A substring's UTF-8 bytes, copied as one block.
    @inline(__always)
    mutating func append(_ text: Substring) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// A bytes field holding the bytes hex digits spell (trace and span ids); left out when
    /// `hex` is empty.
    mutating func hexBytesField(_ field: Int, _ hex: String) {
        var hex = hex
        hex.withUTF8 { digits in
            guard !digits.isEmpty else { return }
            tag(field, .lengthDelimited)
            varint(UInt64(digits.count / 2))
            var index = 0
            while index + 1 < digits.count {
                bytes.append((ASCII.hexValue(digits[index]) ?? 0) << 4 | (ASCII.hexValue(digits[index + 1]) ?? 0))
                index += 2
            }
        }
    }

    /// A bytes field holding ids as numbers, big-endian: a trace id's two halves, or a
    /// span id alone (`high` only).
    mutating func idField(_ field: Int, _ high: UInt64, _ low: UInt64? = nil) {
        tag(field, .lengthDelimited)
        bytes.append(low == nil ? 8 : 16)
        var first = high.bigEndian
        withUnsafeBytes(of: &first) { bytes.append(contentsOf: $0) }
        if var second = low?.bigEndian { withUnsafeBytes(of: &second) { bytes.append(contentsOf: $0) } }
    }

    /// How many bytes `value` takes as a varint (a negative number's two's complement: ten).
    static func varintSize(_ value: Int) -> Int {
        var size = 1
        var rest = UInt64(bitPattern: Int64(value)) >> 7
        while rest > 0 {
            size += 1
            rest >>= 7
        }
        return size
    }

    /// A `KeyValue` as field `field` (`key` 1, `value` 2, an `AnyValue`: string 1, int 3),
    /// its lengths worked out first, so nothing is written twice or moved. What
    /// ``messageField(_:_:)`` around `stringField` and a value writes, byte for byte.
    mutating func attribute(_ field: Int, key: String, value: HTTPServerSpan.AttributeView) {
        let keyLength = key.utf8.count
        switch value {
        case .string(let text):
            let textLength = text.utf8.count
            let anyValue = 1 + Self.varintSize(textLength) + textLength
            keyValueHead(field, keyLength: keyLength, anyValueLength: anyValue, key: key)
            bytes.append(0x0A)  // AnyValue.string_value = 1
            varint(UInt64(textLength))
            append(text)
        case .int(let number):
            let anyValue = 1 + Self.varintSize(Int(truncatingIfNeeded: number))
            keyValueHead(field, keyLength: keyLength, anyValueLength: anyValue, key: key)
            bytes.append(0x18)  // AnyValue.int_value = 3
            varint(UInt64(bitPattern: number))
        }
    }

    /// A `KeyValue`'s tag, length, key, and the head of its value (an `AnyValue` of
    /// `anyValueLength` bytes).
    private mutating func keyValueHead(_ field: Int, keyLength: Int, anyValueLength: Int, key: String) {
        let keyValue = 1 + Self.varintSize(keyLength) + keyLength + 1 + Self.varintSize(anyValueLength) + anyValueLength
        tag(field, .lengthDelimited)
        varint(UInt64(keyValue))
        bytes.append(0x0A)  // KeyValue.key = 1
        varint(UInt64(keyLength))
        append(key)
        bytes.append(0x12)  // KeyValue.value = 2
        varint(UInt64(anyValueLength))
    }

    /// A message field: `body` writes its content, and its length goes in front. `lengthBytes`
    /// are kept for the length (1 suits a small message, 2 a span, 3 a batch's envelope): a
    /// content whose length needs as many moves nothing; another is moved by the difference.
    /// The length is always written in its fewest bytes. Allocates nothing.
    mutating func messageField(_ field: Int, lengthBytes: Int = 1, _ body: (inout ProtobufWriter) -> Void) {
        tag(field, .lengthDelimited)
        bytes.append(contentsOf: repeatElement(0, count: lengthBytes))
        let start = bytes.count
        body(&self)
        var length = bytes.count - start
        let needed = Self.varintSize(length)
        if needed > lengthBytes {
            bytes.insert(contentsOf: repeatElement(0, count: needed - lengthBytes), at: start)
        } else if needed < lengthBytes {
            bytes.removeSubrange(start - lengthBytes..<start - needed)
        }
        // The length's bytes begin where the kept ones began, whichever way the content moved.
        var index = start - lengthBytes
        while length >= 0x80 {
            bytes[index] = UInt8(truncatingIfNeeded: length) | 0x80
            length >>= 7
            index += 1
        }
        bytes[index] = UInt8(length)
    }

    /// Bytes as they are, after a tag and length the caller wrote.
    mutating func appendRaw<Bytes: Sequence>(_ raw: Bytes) where Bytes.Element == UInt8 {
        bytes.append(contentsOf: raw)
    }
}
