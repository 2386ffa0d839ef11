/// The byte classes of RFC 9110 for code that builds messages (header names and values a
/// handler made must be checked before they are written).
public enum HTTPSyntax {
    /// A tchar (RFC 9110 §5.6.2).
    public static func isTokenByte(_ byte: UInt8) -> Bool { ASCII.isToken(byte) }

    /// A byte allowed in a field value: HTAB, SP, VCHAR, obs-text (RFC 9110 §5.5).
    public static func isFieldValueByte(_ byte: UInt8) -> Bool { ASCII.isFieldValue(byte) }

    /// Calls `body` with each non-empty element of the comma-separated list (RFC 9110 §5.6.1)
    /// in `range` of `bytes`, optional whitespace around it trimmed, in order, until `body`
    /// returns false. Allocates nothing; the one reader of lists for the codec and the layers
    /// above it (`Connection`, `Accept-Encoding`, `Accept-Language`, `If-None-Match`, `Vary`).
    /// - Returns: false when `body` stopped it.
    @discardableResult
    public static func forEachListElement(_ range: ByteRange, in bytes: UnsafeRawBufferPointer, _ body: (ByteRange) -> Bool) -> Bool {
        forEachListElementAndEmpty(range, in: bytes) { element in element.isEmpty || body(element) }
    }

    /// `forEachListElement`, empty elements included: an empty value is one empty element,
    /// and `a,` ends with one. For lists that must refuse them (`Transfer-Encoding`: framing
    /// must read one way only).
    /// - Returns: false when `body` stopped it.
    @discardableResult
    public static func forEachListElementAndEmpty(_ range: ByteRange, in bytes: UnsafeRawBufferPointer, _ body: (ByteRange) -> Bool) -> Bool {
        var index = range.lowerBound
        while true {
            var elementEnd = index
            while elementEnd < range.upperBound && bytes[elementEnd] != ASCII.comma { elementEnd += 1 }
            var first = index
            var last = elementEnd
            while first < last && ASCII.isWhitespace(bytes[first]) { first += 1 }
            while last > first && ASCII.isWhitespace(bytes[last - 1]) { last -= 1 }
            if !body(ByteRange(first, last)) { return false }
            if elementEnd >= range.upperBound { return true }
            index = elementEnd + 1
        }
    }

    /// `forEachListElement` over the whole of `bytes`.
    @discardableResult
    public static func forEachListElement(in bytes: UnsafeRawBufferPointer, _ body: (ByteRange) -> Bool) -> Bool {
        forEachListElement(ByteRange(0, bytes.count), in: bytes, body)
    }
}
