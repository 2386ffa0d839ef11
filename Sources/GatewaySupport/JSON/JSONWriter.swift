import Foundation

/// Appends JSON text to a byte buffer, in the order the caller writes it.
///
/// The contract types write their keys in a fixed, documented order, so the same value always
/// gives the same bytes: the gateway can hash them for a strong `ETag`. Strings are written as
/// UTF-8 with only `"`, `\` and control characters escaped (`/` and non-ASCII stay as they are).
/// Decimals are written from their exact decimal text, never through `Double`.
///
/// A value type with no shared state: use one per encoding, on any thread.
public struct JSONWriter: Sendable {
    /// The JSON text written so far.
    public private(set) var bytes: [UInt8]
    private var needsComma = false

    /// Starts an empty buffer with room for `capacity` bytes.
    public init(capacity: Int = 1024) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Opens an object (`{`) as a value.
    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    /// Closes the innermost object.
    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Opens an array (`[`) as a value.
    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    /// Closes the innermost array.
    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes an object key; the next call writes its value.
    public mutating func key(_ name: String) {
        separate()
        writeQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a string value.
    public mutating func string(_ value: String) {
        separate()
        writeQuoted(value)
        needsComma = true
    }

    /// Writes a string value, or `null` for `nil`.
    public mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    /// Writes an integer value.
    public mutating func integer(_ value: Int64) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// Writes a decimal as a JSON number, exactly (`16.9` stays `16.9`; no exponent form).
    public mutating func decimal(_ value: Decimal) {
        separate()
        bytes.append(contentsOf: DecimalText.json(value).utf8)
        needsComma = true
    }

    /// Writes a decimal, or `null` for `nil`.
    public mutating func decimal(_ value: Decimal?) {
        if let value { decimal(value) } else { null() }
    }

    /// Writes `true` or `false`.
    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    /// Writes `null`.
    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// Writes an array of strings.
    public mutating func strings(_ values: [String]) {
        beginArray()
        for value in values { string(value) }
        endArray()
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private static let hex = Array("0123456789abcdef".utf8)

    private mutating func writeQuoted(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        let clean = value.withUTF8 { utf8 in
            utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
        }
        if clean {
            value.withUTF8 { bytes.append(contentsOf: $0) }
            bytes.append(UInt8(ascii: "\""))
            return
        }
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(Self.hex[Int(byte >> 4)])
                bytes.append(Self.hex[Int(byte & 0x0F)])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
