import HTTPCodec
import HTTPInterface

/// One request as the stored-answer path sees it: the decoded head over the connection's
/// own bytes, nothing copied. Valid only during the call it is passed to, on the loop thread.
public struct RequestBytes {
    /// The connection's bytes from the request's first byte.
    package let buffer: UnsafeRawBufferPointer
    /// The decoded head: ranges into `buffer`.
    package let head: RequestHead

    package init(buffer: UnsafeRawBufferPointer, head: RequestHead) {
        self.buffer = buffer
        self.head = head
    }

    /// The method's name as sent.
    public var method: UnsafeRawBufferPointer { head.method.bytes(in: buffer) }

    /// The path, still percent-encoded, without the query.
    public var path: UnsafeRawBufferPointer { head.path.bytes(in: buffer) }

    /// The value of the first header field named `lowercaseName`, or nil.
    public func header(_ lowercaseName: StaticString) -> UnsafeRawBufferPointer? {
        head.value(of: lowercaseName, in: buffer).map { $0.bytes(in: buffer) }
    }

    /// What the query says of one parameter.
    public enum QueryValue {
        case absent
        /// The raw value, which needs no decoding (no `%`, no `+`).
        case plain(UnsafeRawBufferPointer)
        /// A name or value is percent- or plus-encoded: only the decoding path can judge it.
        case encoded
    }

    /// The first value of query parameter `name`, as `GatewayRequest.queryValue` would find
    /// it, when that needs no decoding.
    public func queryValue(_ name: StaticString) -> QueryValue {
        guard let range = head.query else { return .absent }
        let query = range.bytes(in: buffer)
        var pairStart = 0
        while pairStart <= query.count {
            var pairEnd = pairStart
            while pairEnd < query.count && query[pairEnd] != UInt8(ascii: "&") { pairEnd += 1 }
            if pairEnd > pairStart {
                var equals = pairStart
                while equals < pairEnd && query[equals] != UInt8(ascii: "=") { equals += 1 }
                let pair = UnsafeRawBufferPointer(rebasing: query[pairStart..<pairEnd])
                if pair.contains(UInt8(ascii: "%")) || pair.contains(UInt8(ascii: "+")) { return .encoded }
                if ByteRange(pairStart, equals).equals(name, in: query) {
                    let valueStart = min(equals + 1, pairEnd)
                    return .plain(UnsafeRawBufferPointer(rebasing: query[valueStart..<pairEnd]))
                }
            }
            pairStart = pairEnd + 1
        }
        return .absent
    }

    /// The request's `X-Request-ID` when `RequestID` accepts it.
    package var acceptableRequestID: UnsafeRawBufferPointer? {
        header("x-request-id").flatMap { RequestID.isAcceptable($0) ? $0 : nil }
    }
}

/// What a stored-answer handler writes: the status line and its fields into the transport's
/// reused head buffer, and the stored body. The transport adds `X-Request-ID`, `Date`,
/// `Content-Length` and `Connection`, then writes head and body as they are.
public struct StoredAnswer {
    /// Starts empty; the handler appends the status line and fields.
    public var head: [UInt8]
    public var body: [UInt8] = []
    /// For metrics and the access log.
    public var status = 200
    /// A cache hit (the access log says `cache=hit`), not a fixed answer such as health.
    public var fromCache = false
    /// When the body is gzip: the length of the identity bytes it encodes (for metrics).
    public var gzipOf: Int?
    /// A body sent from a file instead of `body` (only when `filesAllowed`).
    public var file: (any FileBody)?
    /// Whether the connection can send a file (`sendfile`): plain TCP, not TLS.
    public let filesAllowed: Bool
    /// What a handler that declined had already worked out (the parsed request, its cache
    /// key, what the cache held): the transport hands it to the route's handler
    /// (`RequestRouting.storedProbe`), so a miss is not parsed and looked up twice. Only a
    /// declining handler sets it (it may allocate); an answer never does.
    public var declined: (any Sendable)?

    package init(head: [UInt8], filesAllowed: Bool) {
        self.head = head
        self.filesAllowed = filesAllowed
    }

    /// Appends `bytes`.
    @inlinable
    public mutating func append(_ bytes: [UInt8]) {
        head.append(contentsOf: bytes)
    }

    /// Appends the `X-Request-ID` line of the answer to `request`: the client's id when
    /// ``RequestID`` accepts it, else a new one. The transport's, after the handler answered;
    /// returns where the id lies in ``head`` (for the access log).
    package mutating func appendRequestID(for request: RequestBytes) -> Range<Int> {
        head.append(contentsOf: Self.requestIDName)
        let start = head.count
        if let id = request.acceptableRequestID {
            head.append(contentsOf: id)
        } else {
            RequestID.appendGenerated(to: &head)
        }
        let range = start..<head.count
        head.append(contentsOf: ResponseHeadWriter.crlf)
        return range
    }

    private static let requestIDName: [UInt8] = Array("X-Request-ID: ".utf8)

    /// Appends a non-negative number in decimal.
    @inlinable
    public mutating func appendDecimal(_ value: Int) {
        ResponseHeadWriter.appendDecimal(value, to: &head)
    }
}

/// A response body that lies in an open file: the transport sends it with `sendfile` from
/// `bodyOffset` for `bodyLength` bytes, never moving the descriptor's own offset. The file
/// must not change while a connection holds the object.
public protocol FileBody: AnyObject, Sendable {
    var descriptor: Int32 { get }
    var bodyOffset: Int { get }
    var bodyLength: Int { get }
}
