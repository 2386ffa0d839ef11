/// One HTTP/2 request, collected as HPACK hands its fields over and as its DATA arrives, and
/// read straight into the `RequestHead` an HTTP/1.1 request makes (``head(limits:)``,
/// ``request(limits:)``, in `HTTP2RequestAssembly+Head.swift`): no HTTP/1.1 text is written
/// and nothing is parsed twice, and the same rules judge it (`RequestHeadChecks`, the
/// decoder's target checks), so the application sees the same request from either protocol.
///
/// nghttp2 has already checked what RFC 9113 asks of the fields (lowercase names, no
/// connection-specific fields, valid pseudo-header fields in their place, values without
/// CR, LF or NUL, a `content-length` that matches the DATA); this type keeps the header list
/// size as RFC 9113 §6.5.2 counts it (name + value + 32 octets per field) and stops storing
/// fields once it passes the limit, so an HPACK bomb costs no memory.
///
/// Everything lives in one byte buffer (``bytes``: the values of the pseudo-header fields, each
/// field's name and value, then the body) that the head's ranges point into; it keeps its
/// capacity from request to request, so a warm stream copies each byte once and allocates
/// nothing. Pure value; no I/O.
public struct HTTP2RequestAssembly: Sendable {
    /// The header list size the request may reach (`SETTINGS_MAX_HEADER_LIST_SIZE`).
    public let maxHeaderListSize: Int
    /// The header list size so far, as RFC 9113 counts it.
    public private(set) var headerListSize = 0
    /// The bytes the head's and the body's ranges point into: ``preamble`` first, then what
    /// arrived, in order.
    public internal(set) var bytes: [UInt8] = HTTP2RequestAssembly.preamble
    var method: ByteRange?
    var path: ByteRange?
    var authority: ByteRange?
    /// Regular fields in order, `content-length` left out (the body's own length stands for it).
    var fields: [HeaderField] = []
    var hasHost = false
    /// Where the body starts in ``bytes`` (its end is the buffer's), once the head is done.
    var bodyStart: Int?
    /// The head being built, kept for its field array's capacity.
    var built = RequestHead()
    /// The `content-length` the client declared, when it sent a valid one.
    public private(set) var declaredContentLength: Int?
    private var requestIDValue: ByteRange?
    private var traceparentValue: ByteRange?

    /// Names the head may need that no field of the request spelled: `host` (made from
    /// `:authority`) and `content-length` (the body's), at the start of every buffer.
    static let preamble = Array("hostcontent-length".utf8)
    static let hostName = ByteRange(0, 4)
    static let contentLengthName = ByteRange(4, 18)

    public init(maxHeaderListSize: Int) {
        self.maxHeaderListSize = maxHeaderListSize
    }

    /// Empties it for another request, keeping its buffers' capacity (a large body's is let go).
    public mutating func reset() {
        headerListSize = 0
        if bytes.capacity > Self.keptCapacity {
            bytes = Self.preamble
        } else {
            bytes.removeSubrange(Self.preamble.count...)
        }
        method = nil
        path = nil
        authority = nil
        fields.removeAll(keepingCapacity: true)
        hasHost = false
        bodyStart = nil
        declaredContentLength = nil
        requestIDValue = nil
        traceparentValue = nil
    }

    /// A buffer larger than this (a large body's) is not kept for the next request.
    static let keptCapacity = 64 * 1024

    /// Whether the fields passed ``maxHeaderListSize`` (they are no longer stored).
    public var isOverLimit: Bool { headerListSize > maxHeaderListSize }

    /// The first `x-request-id` and `traceparent` values: what a refusal of the request
    /// (before it is read) still echoes and logs. New arrays, for that rare path.
    public var requestID: [UInt8]? { requestIDValue.map { Array(bytes[$0.lowerBound..<$0.upperBound]) } }
    public var traceparent: [UInt8]? { traceparentValue.map { Array(bytes[$0.lowerBound..<$0.upperBound]) } }

    /// Whether `:method` is `name`.
    public func hasMethod(_ name: StaticString) -> Bool {
        guard let method else { return false }
        return bytes.withUnsafeBytes { method.equals(name, in: $0) }
    }

    /// Takes one field as HPACK decoded it.
    public mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        headerListSize += name.count + value.count + 32
        guard !isOverLimit, bodyStart == nil else { return }
        if name.first == UInt8(ascii: ":") {
            if Self.equals(name, ":method") { method = store(value) }
            else if Self.equals(name, ":path") { path = store(value) }
            else if Self.equals(name, ":authority") { authority = store(value) }
            // :scheme (and :protocol, which nghttp2 refuses without SETTINGS_ENABLE_CONNECT_PROTOCOL)
            // say nothing the application reads.
            return
        }
        if Self.equals(name, "content-length") {
            declaredContentLength = Self.decimal(value)
            return
        }
        let field = HeaderField(name: store(name), value: store(value))
        if Self.equals(name, "host") { hasHost = true }
        if requestIDValue == nil, Self.equals(name, "x-request-id") { requestIDValue = field.value }
        if traceparentValue == nil, Self.equals(name, "traceparent") { traceparentValue = field.value }
        fields.append(field)
    }

    /// Appends body bytes (DATA) after the fields; no field is taken after the first.
    public mutating func appendBody(_ data: UnsafeRawBufferPointer) {
        if bodyStart == nil { bodyStart = bytes.count }
        bytes.append(contentsOf: data)
    }

    /// Body bytes received so far.
    public var bodyCount: Int { bodyStart.map { bytes.count - $0 } ?? 0 }

    private mutating func store(_ value: UnsafeRawBufferPointer) -> ByteRange {
        let start = bytes.count
        bytes.append(contentsOf: value)
        return ByteRange(start, bytes.count)
    }

    /// The HTTP/1.1 message the request means: `METHOD path HTTP/1.1`, `host` from
    /// `:authority` when no `host` field came, the fields in order, `content-length` of `body`
    /// when there is one, the blank line and `body`. A CONNECT (no `:path`) has the authority
    /// as its target. Not on the request path: tests and the fuzz target read it with
    /// `RequestDecoder`, the oracle the direct reading is held to.
    public func message(body: [UInt8]) -> [UInt8] {
        var message: [UInt8] = []
        func append(_ range: ByteRange?) {
            if let range { message.append(contentsOf: bytes[range.lowerBound..<range.upperBound]) }
        }
        append(method)
        message.append(UInt8(ascii: " "))
        append(path.map { $0.isEmpty ? nil : $0 } ?? authority)
        message.append(contentsOf: " HTTP/1.1\r\n".utf8)
        if !hasHost, let authority, !authority.isEmpty {
            message.append(contentsOf: "host: ".utf8)
            append(authority)
            message.append(contentsOf: "\r\n".utf8)
        }
        for field in fields {
            append(field.name)
            message.append(contentsOf: ": ".utf8)
            append(field.value)
            message.append(contentsOf: "\r\n".utf8)
        }
        if !body.isEmpty { message.append(contentsOf: "content-length: \(body.count)\r\n".utf8) }
        message.append(contentsOf: "\r\n".utf8)
        message.append(contentsOf: body)
        return message
    }

    private static func equals(_ bytes: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount else { return false }
        return name.withUTF8Buffer { bytes.elementsEqual($0) }
    }

    /// Digits only, at most 18 of them; nil otherwise.
    private static func decimal(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= 48, byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }
}
