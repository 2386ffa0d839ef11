import Foundation
import GatewayModels
import GatewaySupport

/// Compact JSON as the v2/v2b server (Spring/Jackson) wrote it: keys in the order the caller
/// writes them, strings escaped like ``JSONWriter`` (only `"`, `\` and control characters),
/// and `double` members printed by ``JavaDouble`` (`2000.0`, `1.23123123E8`), which
/// `JSONWriter` cannot write (it prints decimals exactly, never in E-notation).
///
/// A value type with no shared state: use one per body.
struct SpringJSONWriter {
    /// The JSON text written so far.
    private(set) var bytes: [UInt8]
    private var needsComma = false

    init(capacity: Int = 1024) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    mutating func beginObject() { open(UInt8(ascii: "{")) }

    mutating func endObject() { close(UInt8(ascii: "}")) }

    mutating func beginArray() { open(UInt8(ascii: "[")) }

    mutating func endArray() { close(UInt8(ascii: "]")) }

    /// An object key; the next call writes its value.
    mutating func key(_ name: String) {
        separate()
        appendQuoted(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    mutating func string(_ value: String) {
        separate()
        appendQuoted(value)
        needsComma = true
    }

    /// A Java `long`/`int`: plain digits.
    mutating func integer(_ value: Int64) { number(String(value)) }

    /// A Java `double` holding `value`: ``JavaDouble/format(_:)-(Decimal)``.
    mutating func double(_ value: Decimal) { number(JavaDouble.format(value)) }

    mutating func bool(_ value: Bool) { number(value ? "true" : "false") }

    private mutating func number(_ text: String) {
        separate()
        bytes.append(contentsOf: text.utf8)
        needsComma = true
    }

    private mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        needsComma = false
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    /// `value` quoted and escaped by ``JSONWriter`` itself, so both writers escape alike.
    private mutating func appendQuoted(_ value: String) {
        var quoted = JSONWriter(capacity: value.utf8.count + 2)
        quoted.string(value)
        bytes.append(contentsOf: quoted.bytes)
    }
}
