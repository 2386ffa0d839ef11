import HTTPCodec

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
        var found = QueryValue.absent
        let plain = forEachPlainQueryPair { pair, value in
            guard pair.count == name.utf8CodeUnitCount, pair.elementsEqual(UnsafeRawBufferPointer(start: name.utf8Start, count: pair.count))
            else { return true }
            found = .plain(value)
            return false
        }
        return plain ? found : .encoded
    }

    /// Calls `visit` with each `name=value` pair of the query in order (a pair without `=` has
    /// an empty value) until it returns false. Returns false, having stopped, at the first
    /// pair that needs decoding (`%` or `+`): one pass for several parameters, where
    /// ``queryValue(_:)`` for each name would make one per name.
    public func forEachPlainQueryPair(_ visit: (_ name: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer) -> Bool) -> Bool {
        guard let range = head.query else { return true }
        let query = range.bytes(in: buffer)
        var pairStart = 0
        while pairStart <= query.count {
            var pairEnd = pairStart
            var equals = -1
            var encoded = false
            while pairEnd < query.count {
                let byte = query[pairEnd]
                if byte == UInt8(ascii: "&") { break }
                if byte == UInt8(ascii: "=") && equals < 0 { equals = pairEnd }
                if byte == UInt8(ascii: "%") || byte == UInt8(ascii: "+") { encoded = true }
                pairEnd += 1
            }
            if pairEnd > pairStart {
                if encoded { return false }
                let nameEnd = equals < 0 ? pairEnd : equals
                let valueStart = equals < 0 ? pairEnd : equals + 1
                let name = UnsafeRawBufferPointer(rebasing: query[pairStart..<nameEnd])
                let value = UnsafeRawBufferPointer(rebasing: query[valueStart..<pairEnd])
                if !visit(name, value) { return true }
            }
            pairStart = pairEnd + 1
        }
        return true
    }

    /// The request's `X-Request-ID` when `RequestID` accepts it.
    package var acceptableRequestID: UnsafeRawBufferPointer? {
        header("x-request-id").flatMap { RequestID.isAcceptable($0) ? $0 : nil }
    }
}

/// What a stored-answer handler writes: the status and fields into the transport's reused
/// head buffer, in the transport's `form` (HTTP/1.1 lines after a status line, or HTTP/2
/// field pairs), and the stored body. Handlers write fields only through `append` and
/// `beginField`…`endField`, which write either form. The transport adds `X-Request-ID`,
/// `Date`, `Content-Length` (and `Connection` on HTTP/1.1), then writes head and body as
/// they are.
public struct StoredAnswer {
    /// Starts empty; the handler appends the status line (HTTP/1.1) and fields.
    public var head: [UInt8]
    public var body: [UInt8] = []
    /// The status (HTTP/2 takes it from here; HTTP/1.1's is in the status line too), for
    /// metrics and the access log.
    public var status = 200
    /// A cache hit (the access log says `cache=hit`), not a fixed answer such as health.
    public var fromCache = false
    /// When the body is gzip: the length of the identity bytes it encodes (for metrics).
    public var gzipOf: Int?
    /// A body sent from a file instead of `body` (only when `filesAllowed`).
    public var file: (any FileBody)?
    /// Whether the connection can send a file (`sendfile`): plain TCP, not TLS.
    public let filesAllowed: Bool
    /// The form `head` is written in.
    public let form: StoredFieldForm
    /// What a handler that declined had already worked out (the parsed request, its cache
    /// key, what the cache held): the transport hands it to the route's handler
    /// (`RequestRouting.storedProbe`), so a miss is not parsed and looked up twice. Only a
    /// declining handler sets it (it may allocate); an answer never does.
    public var declined: (any Sendable)?
    /// Where the value of the field begun last starts, and (HTTP/2) where its length goes.
    @usableFromInline var valueStart = 0
    @usableFromInline var valueLengthAt = 0

    package init(head: [UInt8], filesAllowed: Bool, form: StoredFieldForm = .http1) {
        self.head = head
        self.filesAllowed = filesAllowed
        self.form = form
    }

    /// Appends `fields` in this answer's form.
    @inlinable
    public mutating func append(_ fields: StoredFields) {
        if form == .http2 {
            head.append(contentsOf: fields.http2)
        } else {
            head.append(contentsOf: fields.http1)
        }
    }

    /// Starts a field whose value follows (`appendValue`, `appendValueDecimal`) up to
    /// `endField`.
    @inlinable
    public mutating func beginField(_ name: StoredFieldName) {
        // HTTP/2: the value's length goes after the name's two bytes, when the field ends.
        valueLengthAt = head.count + 2
        head.append(contentsOf: form == .http2 ? name.http2 : name.http1)
        valueStart = head.count
    }

    @inlinable
    public mutating func appendValue(_ bytes: [UInt8]) {
        head.append(contentsOf: bytes)
    }

    /// Appends a non-negative number in decimal to the value.
    @inlinable
    public mutating func appendValueDecimal(_ value: Int) {
        ResponseHeadWriter.appendDecimal(value, to: &head)
    }

    /// Ends the field begun last: CRLF, or the value's length in the pair.
    @inlinable
    public mutating func endField() {
        if form == .http2 {
            let length = head.count - valueStart
            precondition(length <= 0xFFFF, "a header field over 64 KiB")
            head[valueLengthAt] = UInt8(truncatingIfNeeded: length >> 8)
            head[valueLengthAt + 1] = UInt8(truncatingIfNeeded: length)
        } else {
            head.append(contentsOf: ResponseHeadWriter.crlf)
        }
    }

    /// Appends the `X-Request-ID` field of the answer to `request`: the client's id when
    /// ``RequestID`` accepts it, else a new one. The transport's, after the handler answered;
    /// returns where the id lies in ``head`` (for the access log).
    package mutating func appendRequestID(for request: RequestBytes) -> Range<Int> {
        beginField(Self.requestIDName)
        if let id = request.acceptableRequestID {
            head.append(contentsOf: id)
        } else {
            RequestID.appendGenerated(to: &head)
        }
        let range = valueStart..<head.count
        endField()
        return range
    }

    private static let requestIDName = StoredFieldName("X-Request-ID")
}

/// A response body that lies in an open file: the transport sends it with `sendfile` from
/// `bodyOffset` for `bodyLength` bytes, never moving the descriptor's own offset. The file
/// must not change while a connection holds the object.
public protocol FileBody: AnyObject, Sendable {
    var descriptor: Int32 { get }
    var bodyOffset: Int { get }
    var bodyLength: Int { get }
}
