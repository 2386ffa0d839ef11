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

    mutating func tag(_ field: Int, _ type: WireType) {
        varint(UInt64(field) << 3 | UInt64(type.rawValue))
    }

    mutating func varint(_ value: UInt64) {
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
        bytes.append(contentsOf: value.utf8)
    }

    /// A bytes field holding the bytes hex digits spell (trace and span ids); left out when
    /// `hex` is empty.
    mutating func hexBytesField(_ field: Int, _ hex: String) {
        let digits = hex.utf8
        guard !digits.isEmpty else { return }
        tag(field, .lengthDelimited)
        varint(UInt64(digits.count / 2))
        var high: UInt8?
        for digit in digits {
            let nibble = ASCII.hexValue(digit) ?? 0
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
    }

    /// A message field: `body` writes its content, and its length goes in front. One byte is
    /// kept for the length (a content under 128 bytes, as most are, moves nothing); a longer
    /// content is moved up by the extra bytes its length needs. Allocates nothing.
    mutating func messageField(_ field: Int, _ body: (inout ProtobufWriter) -> Void) {
        tag(field, .lengthDelimited)
        bytes.append(0)
        let start = bytes.count
        body(&self)
        var length = UInt64(bytes.count - start)
        if length < 0x80 {
            bytes[start - 1] = UInt8(length)
            return
        }
        var extra = 0
        var rest = length >> 7
        while rest > 0 {
            extra += 1
            rest >>= 7
        }
        bytes.insert(contentsOf: repeatElement(0, count: extra), at: start)
        var index = start - 1
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
