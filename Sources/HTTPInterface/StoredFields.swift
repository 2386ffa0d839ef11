import HTTPCodec

/// The wire form of a stored answer's head, chosen by the transport that asks.
public enum StoredFieldForm: Sendable {
    /// A status line, then `Name: value` lines with CRLF.
    case http1
    /// Field pairs (`HTTP2FieldPairs`) for nghttp2; the status travels in `StoredAnswer.status`.
    case http2
}

/// HTTP/2 header fields as a stored answer carries them: per field, the name's length and the
/// value's length (two bytes each, big endian), the lowercase name, then the value. The
/// transport hands them to nghttp2 as they are: nothing is parsed, lowercased or filtered
/// per request. Connection-specific fields (RFC 9113 §8.2.2) and `content-length` (the
/// transport sets its own) are left out when a pair is made.
public enum HTTP2FieldPairs {
    /// Appends `name` (lowercased) and `value` unless HTTP/2 does not carry the field.
    public static func append(name: String, value: String, to bytes: inout [UInt8]) {
        let lowercase = lowercased(name)
        guard !isLeftOut(lowercase[...]) else { return }
        appendLength(lowercase.count, to: &bytes)
        appendLength(value.utf8.count, to: &bytes)
        bytes.append(contentsOf: lowercase)
        bytes.append(contentsOf: value.utf8)
    }

    /// Calls `body` with the name and value ranges of every pair in `bytes`, in order.
    @inlinable
    public static func forEach(in bytes: [UInt8], _ body: (_ name: Range<Int>, _ value: Range<Int>) -> Void) {
        var index = 0
        while index + 4 <= bytes.count {
            let nameLength = Int(bytes[index]) << 8 | Int(bytes[index + 1])
            let valueLength = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            let nameStart = index + 4
            let valueStart = nameStart + nameLength
            index = valueStart + valueLength
            guard index <= bytes.count else { return }
            body(nameStart..<valueStart, valueStart..<index)
        }
    }

    /// `name`'s bytes with ASCII letters in lower case, as HTTP/2 sends names.
    static func lowercased(_ name: String) -> [UInt8] {
        name.utf8.map(ASCII.lower)
    }

    @usableFromInline
    static func appendLength(_ length: Int, to bytes: inout [UInt8]) {
        precondition(length <= 0xFFFF, "a header field over 64 KiB")
        bytes.append(UInt8(truncatingIfNeeded: length >> 8))
        bytes.append(UInt8(truncatingIfNeeded: length))
    }

    /// Connection-specific fields and `content-length`, by lowercase name.
    public static func isLeftOut(_ name: ArraySlice<UInt8>) -> Bool {
        switch name.count {
        case 7: return name.elementsEqual("upgrade".utf8)
        case 10: return name.elementsEqual("connection".utf8) || name.elementsEqual("keep-alive".utf8)
        case 14: return name.elementsEqual("content-length".utf8)
        case 16: return name.elementsEqual("proxy-connection".utf8)
        case 17: return name.elementsEqual("transfer-encoding".utf8)
        default: return false
        }
    }
}

/// Header fields laid out once in both wire forms, for answers served from stored bytes.
public struct StoredFields: Sendable, Equatable {
    /// The status line when there is one, then `Name: value` lines.
    public let http1: [UInt8]
    /// The same fields as `HTTP2FieldPairs` (no status).
    public let http2: [UInt8]

    /// - Parameter status: the status line's code for HTTP/1.1; nil for fields that follow
    ///   another head.
    public init(status: Int? = nil, fields: [(String, String)]) {
        var http1: [UInt8] = []
        var http2: [UInt8] = []
        if let status { ResponseHeadWriter.appendStatusLine(status, to: &http1) }
        for (name, value) in fields {
            ResponseHeadWriter.appendField(name, value, to: &http1)
            HTTP2FieldPairs.append(name: name, value: value, to: &http2)
        }
        self.http1 = http1
        self.http2 = http2
    }

    public var byteCount: Int { http1.count + http2.count }
}

/// A field name in both forms, for a field whose value a stored answer writes per request
/// (`StoredAnswer.beginField`).
public struct StoredFieldName: Sendable {
    /// `Name: `.
    @usableFromInline let http1: [UInt8]
    /// The name's length (two bytes), a placeholder for the value's, the lowercase name.
    @usableFromInline let http2: [UInt8]

    public init(_ name: String) {
        http1 = Array("\(name): ".utf8)
        let lowercase = HTTP2FieldPairs.lowercased(name)
        var pair: [UInt8] = []
        HTTP2FieldPairs.appendLength(lowercase.count, to: &pair)
        pair += [0, 0]
        pair += lowercase
        http2 = pair
    }
}
