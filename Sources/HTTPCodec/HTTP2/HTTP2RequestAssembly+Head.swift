/// An HTTP/2 request's head and whole request, read from its fields directly: the ranges of
/// the `RequestHead` point into ``HTTP2RequestAssembly/bytes``. The verdict is the one
/// `RequestDecoder` reaches on the HTTP/1.1 message the request means
/// (``HTTP2RequestAssembly/message(body:)``), limits, errors and their order included: the
/// request line's length (414, or 431 where the head limit is the smaller), the method and the
/// target, then each field line in order (its share of the head limit, the field count, its
/// syntax, what it says), then `RequestHeadChecks`. The fuzz target `http2-request` and
/// `HTTP2RequestAssemblyTests` hold the two readings to each other.
extension HTTP2RequestAssembly {
    /// The head of a request whose body is still to come (its limit, `maxBodyBytes`, is the
    /// route's): `.head`, or `.failure`.
    public mutating func head(limits: RequestLimits) -> RequestDecodeResult {
        if let error = build(limits: limits, contentLength: nil) { return .failure(error) }
        return .head(built)
    }

    /// The whole request, its body what ``appendBody(_:)`` took: `.complete`, or `.failure`.
    /// A body gets the `content-length` field its length makes (as its HTTP/1.1 message has),
    /// written after it. Once per request.
    public mutating func request(limits: RequestLimits) -> RequestDecodeResult {
        let bodyEnd = bytes.count
        let start = bodyStart ?? bodyEnd
        var contentLength: ByteRange?
        if bodyEnd > start {
            bytes.append(contentsOf: String(bodyEnd - start).utf8)
            contentLength = ByteRange(bodyEnd, bytes.count)
        }
        if let error = build(limits: limits, contentLength: contentLength) { return .failure(error) }
        return .complete(RequestMessage(head: built, body: ByteRange(start, bodyEnd), length: bytes.count))
    }

    /// Fills ``built`` from the fields; the error that refuses the request, or nil.
    private mutating func build(limits: RequestLimits, contentLength: ByteRange?) -> RequestError? {
        var head = built
        built = RequestHead()
        defer { built = head }
        head.clearForNextMessage()
        head.minorVersion = 1
        head.keepAlive = true
        head.maxBodyBytes = 0
        let synthesizedHost = !hasHost ? authority.flatMap { $0.isEmpty ? nil : $0 } : nil
        let target = path.flatMap { $0.isEmpty ? nil : $0 } ?? authority ?? .empty
        return bytes.withUnsafeBytes { raw in
            Self.read(
                into: &head, method: method ?? .empty, target: target, host: synthesizedHost, fields: fields, contentLength: contentLength,
                limits: limits, in: raw)
        }
    }

    /// The reading itself, over `raw` (the assembly's bytes). `offset` follows where each
    /// byte would sit in the HTTP/1.1 message, for the head limit.
    private static func read(
        into head: inout RequestHead, method: ByteRange, target: ByteRange, host: ByteRange?, fields: [HeaderField], contentLength: ByteRange?,
        limits: RequestLimits, in raw: UnsafeRawBufferPointer
    ) -> RequestError? {
        // The request line, `METHOD SP target SP HTTP/1.1 CRLF`: its LF's offset.
        if method.isEmpty { return .malformedRequestLine }
        for index in method.lowerBound..<method.upperBound where !ASCII.isToken(raw[index]) { return .invalidMethod }
        let lineEnd = method.count + 1 + target.count + 10
        if limits.maxHeadBytes <= limits.maxTargetBytes + RequestDecoder.requestLineAllowance, lineEnd >= limits.maxHeadBytes {
            return limits.maxHeadBytes > limits.maxTargetBytes ? .targetTooLong : .headTooLarge
        }
        if lineEnd >= limits.maxTargetBytes + RequestDecoder.requestLineAllowance { return .targetTooLong }
        if target.isEmpty { return .malformedRequestLine }
        head.method = method
        if target.count > limits.maxTargetBytes { return .targetTooLong }
        for index in target.lowerBound..<target.upperBound where !ASCII.isTarget(raw[index]) || raw[index] == 0x23 {
            return .invalidTarget
        }
        head.target = target
        guard RequestDecoder.splitTarget(&head, in: raw) else { return .invalidTarget }
        var checks = RequestHeadChecks()
        var offset = lineEnd + 1
        /// One field line, `name: value CRLF`, as the decoder takes it.
        func line(_ name: ByteRange, _ value: ByteRange) -> RequestError? {
            let lineFeed = offset + name.count + 2 + value.count + 1
            if lineFeed >= limits.maxHeadBytes { return .headTooLarge }
            offset = lineFeed + 1
            if head.fields.count >= limits.maxFieldCount { return .headTooLarge }
            if name.isEmpty { return .invalidFieldName }
            if ASCII.isWhitespace(raw[name.lowerBound]) { return .foldedLine }
            for index in name.lowerBound..<name.upperBound where !ASCII.isToken(raw[index]) { return .invalidFieldName }
            var start = value.lowerBound
            while start < value.upperBound && ASCII.isWhitespace(raw[start]) { start += 1 }
            var end = start
            for index in start..<value.upperBound {
                let byte = raw[index]
                guard ASCII.isFieldValue(byte) else { return .invalidFieldValue(byte) }
                if !ASCII.isWhitespace(byte) { end = index + 1 }
            }
            let field = HeaderField(name: name, value: ByteRange(start, end))
            head.fields.append(field)
            return checks.note(field, head: &head, in: raw)
        }
        if let host, let error = line(HTTP2RequestAssembly.hostName, host) { return error }
        for field in fields {
            if let error = line(field.name, field.value) { return error }
        }
        if let contentLength, let error = line(HTTP2RequestAssembly.contentLengthName, contentLength) { return error }
        // The blank line: its LF is the head's last byte.
        if offset + 1 >= limits.maxHeadBytes { return .headTooLarge }
        head.length = offset + 2
        return checks.finish(&head, limits: limits, in: raw)
    }
}
