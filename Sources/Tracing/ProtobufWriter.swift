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
            let nibble = Self.nibble(digit)
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
    }

    /// A message field: `body` writes its content, and its length goes in front.
    mutating func messageField(_ field: Int, _ body: (inout ProtobufWriter) -> Void) {
        tag(field, .lengthDelimited)
        let start = bytes.count
        body(&self)
        let length = bytes.count - start
        var prefix: [UInt8] = []
        var value = UInt64(length)
        while value >= 0x80 {
            prefix.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        prefix.append(UInt8(value))
        bytes.insert(contentsOf: prefix, at: start)
    }

    /// Bytes as they are, after a tag and length the caller wrote.
    mutating func appendRaw<Bytes: Sequence>(_ raw: Bytes) where Bytes.Element == UInt8 {
        bytes.append(contentsOf: raw)
    }

    private static func nibble(_ digit: UInt8) -> UInt8 {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: 0
        }
    }
}
