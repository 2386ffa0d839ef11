/// One HTTP/2 request's header fields, collected as HPACK hands them over, and turned into the
/// HTTP/1.1 message that `RequestDecoder` reads, so that one strict parser judges the requests
/// of both protocols and the application sees the same `RequestHead` from either.
///
/// nghttp2 has already checked what RFC 9113 asks of the fields (lowercase names, no
/// connection-specific fields, valid pseudo-header fields in their place, values without
/// CR, LF or NUL, a `content-length` that matches the DATA); this type keeps the header list
/// size as RFC 9113 §6.5.2 counts it (name + value + 32 octets per field) and stops storing
/// fields once it passes the limit, so an HPACK bomb costs no memory.
///
/// Pure value; no I/O.
public struct HTTP2RequestAssembly: Sendable {
    /// The header list size the request may reach (`SETTINGS_MAX_HEADER_LIST_SIZE`).
    public let maxHeaderListSize: Int
    /// The header list size so far, as RFC 9113 counts it.
    public private(set) var headerListSize = 0
    public private(set) var method: [UInt8] = []
    public private(set) var path: [UInt8] = []
    public private(set) var authority: [UInt8] = []
    /// Regular fields as HTTP/1.1 field lines (`name: value\r\n`), `content-length` left out.
    private var fieldLines: [UInt8] = []
    private var hasHost = false
    /// The `content-length` the client declared, when it sent a valid one.
    public private(set) var declaredContentLength: Int?
    /// The first `x-request-id` and `traceparent` values: what a refusal of the request
    /// (before it is decoded) still echoes and logs. Kept in buffers reused by the next
    /// request (a stream's assembly copies each field once, and allocates nothing once warm).
    public var requestID: [UInt8]? { hasRequestID ? requestIDBytes : nil }
    public var traceparent: [UInt8]? { hasTraceparent ? traceparentBytes : nil }
    private var requestIDBytes: [UInt8] = []
    private var traceparentBytes: [UInt8] = []
    private var hasRequestID = false
    private var hasTraceparent = false

    public init(maxHeaderListSize: Int) {
        self.maxHeaderListSize = maxHeaderListSize
    }

    /// Empties it for another request, keeping its buffers' capacity.
    public mutating func reset() {
        headerListSize = 0
        method.removeAll(keepingCapacity: true)
        path.removeAll(keepingCapacity: true)
        authority.removeAll(keepingCapacity: true)
        fieldLines.removeAll(keepingCapacity: true)
        hasHost = false
        declaredContentLength = nil
        hasRequestID = false
        hasTraceparent = false
    }

    /// Whether the fields passed ``maxHeaderListSize`` (they are no longer stored).
    public var isOverLimit: Bool { headerListSize > maxHeaderListSize }

    /// Takes one field as HPACK decoded it.
    public mutating func add(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) {
        headerListSize += name.count + value.count + 32
        guard !isOverLimit else { return }
        if name.first == UInt8(ascii: ":") {
            if Self.equals(name, ":method") { Self.store(value, in: &method) }
            else if Self.equals(name, ":path") { Self.store(value, in: &path) }
            else if Self.equals(name, ":authority") { Self.store(value, in: &authority) }
            // :scheme (and :protocol, which nghttp2 refuses without SETTINGS_ENABLE_CONNECT_PROTOCOL)
            // say nothing the application reads.
            return
        }
        if Self.equals(name, "content-length") {
            declaredContentLength = Self.decimal(value)
            return
        }
        if Self.equals(name, "host") { hasHost = true }
        if !hasRequestID, Self.equals(name, "x-request-id") {
            Self.store(value, in: &requestIDBytes)
            hasRequestID = true
        }
        if !hasTraceparent, Self.equals(name, "traceparent") {
            Self.store(value, in: &traceparentBytes)
            hasTraceparent = true
        }
        fieldLines.append(contentsOf: name)
        fieldLines.append(UInt8(ascii: ":"))
        fieldLines.append(UInt8(ascii: " "))
        fieldLines.append(contentsOf: value)
        fieldLines.append(UInt8(ascii: "\r"))
        fieldLines.append(UInt8(ascii: "\n"))
    }

    /// The HTTP/1.1 message: `METHOD path HTTP/1.1`, `host` from `:authority` when no `host`
    /// field came, the fields in order, `content-length` of `body` when there is one, the
    /// blank line and `body`. A CONNECT (no `:path`) has the authority as its target.
    public func message(body: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        message(body: body, into: &bytes)
        return bytes
    }

    /// ``message(body:)`` written into `bytes` (emptied first, its capacity kept).
    public func message(body: [UInt8], into bytes: inout [UInt8]) {
        bytes.removeAll(keepingCapacity: true)
        bytes.reserveCapacity(method.count + path.count + authority.count + fieldLines.count + body.count + 64)
        bytes.append(contentsOf: method)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: path.isEmpty ? authority : path)
        bytes.append(contentsOf: Self.versionLine)
        if !hasHost && !authority.isEmpty {
            bytes.append(contentsOf: Self.hostName)
            bytes.append(contentsOf: authority)
            bytes.append(UInt8(ascii: "\r"))
            bytes.append(UInt8(ascii: "\n"))
        }
        bytes.append(contentsOf: fieldLines)
        if !body.isEmpty {
            bytes.append(contentsOf: Self.contentLengthName)
            bytes.append(contentsOf: String(body.count).utf8)
            bytes.append(UInt8(ascii: "\r"))
            bytes.append(UInt8(ascii: "\n"))
        }
        bytes.append(UInt8(ascii: "\r"))
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: body)
    }

    private static let versionLine = Array(" HTTP/1.1\r\n".utf8)
    private static let hostName = Array("host: ".utf8)
    private static let contentLengthName = Array("content-length: ".utf8)

    /// `value` in place of what `buffer` held, in its storage (no allocation once it is large
    /// enough).
    private static func store(_ value: UnsafeRawBufferPointer, in buffer: inout [UInt8]) {
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: value)
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
