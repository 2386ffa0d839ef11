/// One header (or trailer) field as the decoder found it: the name as sent and the value
/// with surrounding whitespace removed, as ranges into the decoder's buffer.
public struct HeaderField: Sendable, Hashable {
    public var name: ByteRange
    public var value: ByteRange
}

/// A request head as ranges into the buffer given to `RequestDecoder.decode`, with the
/// framing the decoder settled. Valid while that buffer is unchanged, that is until the
/// caller drops the message's bytes or calls `decode` for the next message.
public struct RequestHead: Sendable {
    /// The method token as sent (methods are case-sensitive, RFC 9110 §9.1).
    public internal(set) var method = ByteRange.empty
    /// The whole request-target.
    public internal(set) var target = ByteRange.empty
    /// The path of an origin-form or absolute-form target, still percent-encoded; the
    /// whole target for the asterisk and authority forms. Empty for `http://host` without
    /// a path (which means `/`).
    public internal(set) var path = ByteRange.empty
    /// What follows the first `?` of the target, or nil when it has none.
    public internal(set) var query: ByteRange?
    /// The minor version: 0 for HTTP/1.0; 1 for HTTP/1.1 and for higher 1.x, which are
    /// read as 1.1 (RFC 9110 §2.5).
    public internal(set) var minorVersion = 1
    /// Every header field in order.
    public internal(set) var fields: [HeaderField] = []
    /// The Content-Length, when one was sent (never together with `chunked`).
    public internal(set) var contentLength: Int?
    /// Whether the body is chunked.
    public internal(set) var chunked = false
    /// Whether the connection may carry another request after this one: HTTP/1.1 without
    /// `Connection: close`, or HTTP/1.0 with `Connection: keep-alive`.
    public internal(set) var keepAlive = true
    /// `Expect: 100-continue` was sent.
    public internal(set) var expectsContinue = false
    /// An `Expect` other than 100-continue was sent (417 is the answer).
    public internal(set) var hasUnsupportedExpectation = false
    /// The Host value, when there was one.
    public internal(set) var host: ByteRange?
    /// The body limit of this request (``RequestLimits/maxBodyBytes(method:path:in:)``).
    public internal(set) var maxBodyBytes = 0
    /// The bytes of the head, from the start of the buffer (leading empty lines included)
    /// through the blank line that ends it.
    public internal(set) var length = 0

    public init() {}

    /// Forgets what the last request said (the field array keeps its capacity): nothing of
    /// one message may be taken for the next one's.
    mutating func clearForNextMessage() {
        fields.removeAll(keepingCapacity: true)
        method = .empty
        target = .empty
        path = .empty
        query = nil
        host = nil
        length = 0
        contentLength = nil
        chunked = false
        expectsContinue = false
        hasUnsupportedExpectation = false
    }

    /// Whether the request has a body to read (a positive Content-Length, or chunked).
    public var hasBody: Bool { chunked || (contentLength ?? 0) > 0 }

    /// The value of the first field named `lowercaseName` (compared without case).
    public func value(of lowercaseName: StaticString, in buffer: UnsafeRawBufferPointer) -> ByteRange? {
        for field in fields where field.name.equalsIgnoringCase(lowercaseName, in: buffer) {
            return field.value
        }
        return nil
    }
}

/// A complete request: its head and its body, decoded (chunks joined in place).
public struct RequestMessage: Sendable {
    public var head: RequestHead
    /// The body bytes in the buffer; empty when there is none.
    public var body: ByteRange
    /// How many bytes of the buffer the message took; the next message starts there.
    public var length: Int
}

/// What one call of `RequestDecoder.decode` found.
public enum RequestDecodeResult: Sendable {
    /// More bytes are needed; call again with the same message start and more bytes.
    case needMore
    /// The head of a request with a body is complete; the body is not read yet (send
    /// `100 Continue` or refuse now). Call again to read the body.
    case head(RequestHead)
    /// A whole request. The decoder is ready for the next one, which starts at `length`.
    case complete(RequestMessage)
    /// The stream is refused; answer `error.status` and close. The decoder stays failed.
    case failure(RequestError)
}
