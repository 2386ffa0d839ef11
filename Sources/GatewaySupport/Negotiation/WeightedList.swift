import HTTPCodec

/// Reads a header that is a list of elements with optional weights (RFC 9110 §5.6.1 lists,
/// §12.4.2 quality values), as `Accept-Encoding` and `Accept-Language` are:
/// `gzip;q=0.5, br`, `en-US,en;q=0.9`.
///
/// Works on bytes and allocates nothing, and its work is bounded whatever the client sends:
/// only the first ``maxElements`` non-empty elements are read and an element longer than
/// ``maxElementBytes`` is not parsed, so a 16 KiB header costs one scan for commas. Real
/// clients send a few elements of a few bytes each. What was left unread is reported, so a
/// caller can answer safely. Pure and thread-safe.
public enum WeightedList {
    /// Elements read from one header; the rest are ignored.
    public static let maxElements = 32
    /// Longest element read (value and parameters); a longer one is skipped.
    public static let maxElementBytes = 128

    /// Calls `body` with each element's value (without parameters, optional whitespace
    /// trimmed, case unchanged) and its weight in thousandths: 1000 when there is no `q`
    /// parameter, nil when a `q` parameter is not an RFC 9110 `qvalue` (`0`, `0.5`, `1.000`,
    /// at most three decimals). An element that was not read (longer than ``maxElementBytes``)
    /// is reported with an empty value and a nil weight, so that a caller can tell that it
    /// may have said something. Stops early when `body` returns false.
    /// - Returns: false when elements past ``maxElements`` were left unread.
    @discardableResult
    public static func forEach(_ header: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Int?) -> Bool) -> Bool {
        var read = 0
        var complete = true
        HTTPSyntax.forEachListElement(in: header) { span in
            guard read < maxElements else {
                complete = false
                return false
            }
            read += 1
            guard span.count <= maxElementBytes else {
                return body(UnsafeRawBufferPointer(rebasing: header[span.lowerBound..<span.lowerBound]), nil)
            }
            let element = span.bytes(in: header)
            let valueEnd = element.firstIndex(of: UInt8(ascii: ";")) ?? element.count
            let value = trimmed(element, 0, valueEnd)
            guard !value.isEmpty else { return true }
            return body(UnsafeRawBufferPointer(rebasing: element[value]), weight(element, from: valueEnd))
        }
        return complete
    }

    /// `forEach` on a `String` header.
    @discardableResult
    public static func forEach(_ header: String, _ body: (UnsafeRawBufferPointer, Int?) -> Bool) -> Bool {
        var header = header
        return header.withUTF8 { forEach(UnsafeRawBufferPointer($0), body) }
    }

    /// The `q` parameter among the `;`-separated parameters from `start`: 1000 when absent,
    /// nil when malformed. Other parameters are ignored.
    private static func weight(_ element: UnsafeRawBufferPointer, from start: Int) -> Int? {
        var index = start
        while index < element.count {
            var end = index + 1
            while end < element.count, element[end] != UInt8(ascii: ";") { end += 1 }
            defer { index = end }
            let parameter = trimmed(element, index + 1, end)
            guard let equals = element[parameter].firstIndex(of: UInt8(ascii: "=")) else { continue }
            let name = trimmed(element, parameter.lowerBound, equals)
            guard name.count == 1, element[name.lowerBound] | 0x20 == UInt8(ascii: "q") else { continue }
            return qValue(UnsafeRawBufferPointer(rebasing: element[trimmed(element, equals + 1, parameter.upperBound)]))
        }
        return 1000
    }

    /// RFC 9110 `qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )`, in thousandths.
    private static func qValue(_ text: UnsafeRawBufferPointer) -> Int? {
        guard let whole = text.first, whole == UInt8(ascii: "0") || whole == UInt8(ascii: "1"), text.count <= 5 else { return nil }
        guard text.count > 1 else { return whole == UInt8(ascii: "1") ? 1000 : 0 }
        guard text[1] == UInt8(ascii: ".") else { return nil }
        var thousandths = 0
        var scale = 100
        for digit in text.dropFirst(2) {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            thousandths += Int(digit - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        if whole == UInt8(ascii: "1") { return thousandths == 0 ? 1000 : nil }
        return thousandths
    }

    /// `bytes[start..<end]` without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Range<Int> {
        var start = start
        var end = end
        while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
        while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        return start..<end
    }
}
