/// An incremental, strict HTTP/1.1 request decoder (RFC 9110, RFC 9112). Sans-I/O: it reads
/// the bytes it is handed and keeps only offsets between calls.
///
/// Use: keep the connection's unconsumed input in one buffer that starts at the current
/// message, and call `decode` whenever bytes arrive. `.needMore` asks for more bytes;
/// `.head` reports the head of a request with a body before the body is read (so the
/// caller can refuse it or send `100 Continue`); `.complete` gives the whole message, after
/// which the caller drops `length` bytes and calls again for the next one (pipelining);
/// `.failure` refuses the stream for good. A chunked body is decoded in place: chunk data is
/// moved over the chunk-size lines, so the body is one contiguous range.
///
/// The decoder allocates nothing once its field array has grown to a connection's usual
/// number of fields.
public struct RequestDecoder: Sendable {
    public let limits: RequestLimits
    /// The head of the current (or last) request. After a failure in the head, the fields
    /// read before the failure, so the caller can still find `X-Request-ID`.
    public private(set) var head = RequestHead()

    private enum Phase: Sendable {
        case head
        case fixedBody
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers(bytes: Int)
        case failed(RequestError)
    }

    private var phase = Phase.head
    /// Head: where the next call resumes looking for the blank line.
    private var scanned = 0
    /// Head: the first byte after the leading empty lines, or nil while still skipping them.
    private var headStart: Int?
    /// Chunked: the next byte to read, and the end of the decoded body so far.
    private var cursor = 0
    private var written = 0

    /// Longest chunk-size line (size and extensions) accepted.
    static let maxChunkLineBytes = 4096

    public init(limits: RequestLimits = RequestLimits()) {
        self.limits = limits
    }

    /// Reads what it can of the message that starts at `buffer`'s first byte. `buffer` must
    /// hold every byte of the message received so far (and may hold the following ones);
    /// between calls for one message the caller may only append. Chunked bodies are moved
    /// within the message's bytes.
    public mutating func decode(_ buffer: UnsafeMutableRawBufferPointer) -> RequestDecodeResult {
        switch phase {
        case .failed(let error):
            return .failure(error)
        case .head:
            return decodeHead(UnsafeRawBufferPointer(buffer))
        case .fixedBody:
            let end = head.length + (head.contentLength ?? 0)
            guard buffer.count >= end else { return .needMore }
            return complete(body: ByteRange(head.length, end), length: end)
        case .chunkSize, .chunkData, .chunkDataEnd, .trailers:
            return decodeChunked(buffer)
        }
    }

    /// Whether the decoder refused a stream (it stays failed; make another for the next one).
    public var hasFailed: Bool {
        if case .failed = phase { return true }
        return false
    }

    /// Whether the decoder holds no state of a message (one just completed, or none began; a
    /// lone leading CR leaves none either), so it can go on with another connection's stream
    /// (a server lends idle decoders from a pool).
    public var isBetweenMessages: Bool {
        if case .head = phase { return scanned == 0 && headStart == nil }
        return false
    }

    private mutating func fail(_ error: RequestError) -> RequestDecodeResult {
        phase = .failed(error)
        return .failure(error)
    }

    private mutating func complete(body: ByteRange, length: Int) -> RequestDecodeResult {
        let message = RequestMessage(head: head, body: body, length: length)
        phase = .head
        scanned = 0
        headStart = nil
        return .complete(message)
    }

    // MARK: - Head

    /// Head: the start of the line being read, and how many lines came before it.
    private var lineStart = 0
    private var lineNumber = 0
    /// Head: what the fields said so far.
    private var fieldState = RequestHeadChecks()

    /// Reads the head line by line as bytes arrive: each line is checked as soon as it is
    /// complete, and the first byte of each line as soon as it arrives, so a malformed head
    /// is refused without waiting for its end.
    private mutating func decodeHead(_ bytes: UnsafeRawBufferPointer) -> RequestDecodeResult {
        if scanned == 0 {
            head.clearForNextMessage()
            fieldState = RequestHeadChecks()
            lineNumber = 0
        }
        let count = bytes.count
        // Empty lines before the request line are skipped (RFC 9112 §2.2).
        var start: Int
        if let headStart {
            start = headStart
        } else {
            start = scanned
            while start < count {
                let byte = bytes[start]
                if byte == ASCII.lf { return fail(.bareLineFeed) }
                guard byte == ASCII.cr else { break }
                guard start + 1 < count else {
                    scanned = start
                    return .needMore
                }
                guard bytes[start + 1] == ASCII.lf else { return fail(.bareCarriageReturn) }
                start += 2
                if start > limits.maxHeadBytes { return fail(.headTooLarge) }
            }
            guard start < count else {
                scanned = start
                return .needMore
            }
            headStart = start
            scanned = start
            lineStart = start
        }
        // Every LF must follow a CR and every CR precede an LF. The limits are checked at the
        // byte that crosses them, so the answer never depends on how the bytes were split.
        var index = scanned
        var end = -1
        let targetCeiling = start + limits.maxTargetBytes + Self.requestLineAllowance
        while index < count {
            if index - start >= limits.maxHeadBytes {
                return fail(lineNumber == 0 && index - start > limits.maxTargetBytes ? .targetTooLong : .headTooLarge)
            }
            if lineNumber == 0 && index >= targetCeiling { return fail(.targetTooLong) }
            let byte = bytes[index]
            if index > start && bytes[index - 1] == ASCII.cr && byte != ASCII.lf {
                return fail(.bareCarriageReturn)
            }
            if index == lineStart {
                if lineNumber == 0 {
                    if !ASCII.isToken(byte) { return fail(byte == ASCII.space ? .malformedRequestLine : .invalidMethod) }
                } else if ASCII.isWhitespace(byte) {
                    return fail(.foldedLine)
                } else if byte != ASCII.cr && !ASCII.isToken(byte) {
                    return fail(.invalidFieldName)
                }
            }
            if byte == ASCII.lf {
                if index == start || bytes[index - 1] != ASCII.cr { return fail(.bareLineFeed) }
                if lineNumber > 0 && index - 1 == lineStart {
                    end = index + 1
                    break
                }
                let error = lineNumber == 0
                    ? parseRequestLine(bytes, from: lineStart, to: index - 1) : addField(bytes, at: lineStart)
                if let error { return fail(error) }
                lineNumber += 1
                lineStart = index + 1
            }
            index += 1
        }
        if end < 0 {
            scanned = count
            return .needMore
        }
        head.length = end
        if let error = finishHead(bytes) { return fail(error) }
        if head.chunked {
            cursor = end
            lineScanned = end
            written = end
            phase = .chunkSize
            return .head(head)
        }
        if let length = head.contentLength, length > 0 {
            phase = .fixedBody
            return .head(head)
        }
        return complete(body: ByteRange(end, end), length: end)
    }

    /// Room for the method and version around the target on a request line.
    static let requestLineAllowance = 64

    /// Parses the request line `start..<end` (`end` at its CR): method SP request-target SP
    /// HTTP-version.
    private mutating func parseRequestLine(_ bytes: UnsafeRawBufferPointer, from start: Int, to lineEnd: Int) -> RequestError? {
        var index = start
        while index < lineEnd && ASCII.isToken(bytes[index]) { index += 1 }
        guard index < lineEnd else { return .malformedRequestLine }
        guard bytes[index] == ASCII.space else { return .invalidMethod }
        head.method = ByteRange(start, index)
        let targetStart = index + 1
        var versionStart = lineEnd
        while versionStart > targetStart && bytes[versionStart - 1] != ASCII.space { versionStart -= 1 }
        guard versionStart > targetStart + 1 else { return .malformedRequestLine }
        guard versionStart < lineEnd else { return .malformedVersion }
        let targetEnd = versionStart - 1
        if targetEnd - targetStart > limits.maxTargetBytes { return .targetTooLong }
        for offset in targetStart..<targetEnd where !ASCII.isTarget(bytes[offset]) || bytes[offset] == 0x23 {
            return .invalidTarget
        }
        head.target = ByteRange(targetStart, targetEnd)
        if let error = parseVersion(bytes, from: versionStart, to: lineEnd) { return error }
        return Self.splitTarget(&head, in: bytes) ? nil : .invalidTarget
    }

    /// Parses the field line at `start` (complete, ending with CRLF) and notes what it says
    /// about framing, Host, Connection and Expect.
    private mutating func addField(_ bytes: UnsafeRawBufferPointer, at start: Int) -> RequestError? {
        if head.fields.count >= limits.maxFieldCount { return .headTooLarge }
        let field: HeaderField
        switch Self.parseField(bytes, at: start) {
        case .failure(let error): return error
        case .success(let parsed): field = parsed.field
        }
        head.fields.append(field)
        return fieldState.note(field, head: &head, in: bytes)
    }

    /// The checks that need the whole head: Host, framing, body rules and limits.
    private mutating func finishHead(_ bytes: UnsafeRawBufferPointer) -> RequestError? {
        fieldState.finish(&head, limits: limits, in: bytes)
    }

    /// `HTTP/1.0` or `HTTP/1.1` (a higher 1.x reads as 1.1); another major is 505.
    private mutating func parseVersion(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> RequestError? {
        guard end - start == 8, ByteRange(start, start + 5).equals("HTTP/", in: bytes),
            ASCII.isDigit(bytes[start + 5]), bytes[start + 6] == 0x2E, ASCII.isDigit(bytes[start + 7])
        else { return .malformedVersion }
        guard bytes[start + 5] == 0x31 else { return .unsupportedVersion }
        head.minorVersion = bytes[start + 7] == 0x30 ? 0 : 1
        return nil
    }

    /// Sets `path` and `query` from `target`, which must have one of the four forms of
    /// RFC 9112 §3.2: origin-form, absolute-form (http or https), authority-form (CONNECT
    /// only), asterisk-form (OPTIONS only). False for anything else.
    static func splitTarget(_ head: inout RequestHead, in bytes: UnsafeRawBufferPointer) -> Bool {
        let target = head.target
        var pathStart = target.lowerBound
        if bytes[pathStart] != 0x2F, let scheme = Self.schemeEnd(bytes, target) {
            // absolute-form: the path starts at the first `/` or `?` after the authority.
            pathStart = scheme
            while pathStart < target.upperBound && bytes[pathStart] != 0x2F && bytes[pathStart] != 0x3F { pathStart += 1 }
            guard pathStart > scheme, Self.isAuthority(ByteRange(scheme, pathStart), in: bytes) else { return false }
        } else if bytes[pathStart] != 0x2F {
            let asterisk = target.equals("*", in: bytes) && head.method.equals("OPTIONS", in: bytes)
            let authority = head.method.equals("CONNECT", in: bytes) && Self.isAuthority(target, in: bytes)
            head.path = target
            return asterisk || authority
        }
        var question = pathStart
        while question < target.upperBound && bytes[question] != 0x3F { question += 1 }
        head.path = ByteRange(pathStart, question)
        head.query = question < target.upperBound ? ByteRange(question + 1, target.upperBound) : nil
        return true
    }

    /// The offset after `scheme://` when `target` starts with `http://` or `https://`.
    private static func schemeEnd(_ bytes: UnsafeRawBufferPointer, _ target: ByteRange) -> Int? {
        let start = target.lowerBound
        if target.count >= 7 && ByteRange(start, start + 7).equalsIgnoringCase("http://", in: bytes) { return start + 7 }
        if target.count >= 8 && ByteRange(start, start + 8).equalsIgnoringCase("https://", in: bytes) { return start + 8 }
        return nil
    }

    private enum FieldParse {
        case success((field: HeaderField, next: Int))
        case failure(RequestError)
    }

    /// One field line starting at `start` (a line that ends with CRLF, known to be there).
    private static func parseField(_ bytes: UnsafeRawBufferPointer, at start: Int) -> FieldParse {
        if ASCII.isWhitespace(bytes[start]) { return .failure(.foldedLine) }
        var index = start
        while ASCII.isToken(bytes[index]) { index += 1 }
        if index == start { return .failure(.invalidFieldName) }
        let name = ByteRange(start, index)
        let separator = bytes[index]
        if ASCII.isWhitespace(separator) { return .failure(.spaceBeforeColon) }
        guard separator == ASCII.colon else { return .failure(.invalidFieldName) }
        index += 1
        while ASCII.isWhitespace(bytes[index]) { index += 1 }
        let valueStart = index
        var valueEnd = index
        while true {
            let byte = bytes[index]
            if byte == ASCII.cr { break }
            guard ASCII.isFieldValue(byte) else { return .failure(.invalidFieldValue(byte)) }
            index += 1
            if !ASCII.isWhitespace(byte) { valueEnd = index }
        }
        // `index` is at the CR; the LF follows (the scan checked every CR).
        return .success((HeaderField(name: name, value: ByteRange(valueStart, valueEnd)), index + 2))
    }

    /// A Content-Length value: digits only, at most 18 of them after leading zeros (larger
    /// numbers are refused as unrepresentable, not wrapped).
    static func decimal(_ range: ByteRange, in bytes: UnsafeRawBufferPointer) -> Int? {
        guard range.count > 0 else { return nil }
        var value = 0
        var significant = 0
        for index in range.lowerBound..<range.upperBound {
            let byte = bytes[index]
            guard ASCII.isDigit(byte) else { return nil }
            if value > 0 || byte != 0x30 { significant += 1 }
            guard significant <= 18 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    /// Whether `host` is a uri-host with an optional port: reg-name, IPv4 or IP-literal
    /// characters only (RFC 3986 §3.2.2), or empty.
    static func isAuthority(_ host: ByteRange, in bytes: UnsafeRawBufferPointer) -> Bool {
        for index in host.lowerBound..<host.upperBound {
            let byte = bytes[index]
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: continue
            case 0x2D, 0x2E, 0x5F, 0x7E: continue  // - . _ ~
            case 0x21, 0x24, 0x26...0x2C, 0x3B, 0x3D: continue  // sub-delims
            case 0x3A, 0x5B, 0x5D, 0x25: continue  // : [ ] %
            default: return false
            }
        }
        return true
    }

    /// HEAD, TRACE and CONNECT: a body there is read by some intermediaries and not others.
    static func forbidsBody(_ method: ByteRange, in bytes: UnsafeRawBufferPointer) -> Bool {
        method.equals("HEAD", in: bytes) || method.equals("TRACE", in: bytes) || method.equals("CONNECT", in: bytes)
    }

    // MARK: - Chunked body

    private mutating func decodeChunked(_ buffer: UnsafeMutableRawBufferPointer) -> RequestDecodeResult {
        let count = buffer.count
        while true {
            switch phase {
            case .chunkSize:
                let bytes = UnsafeRawBufferPointer(buffer)
                guard let lf = lineFeed(in: bytes, lineStart: cursor, limit: Self.maxChunkLineBytes) else {
                    return count - cursor > Self.maxChunkLineBytes ? fail(.invalidChunkSize) : .needMore
                }
                guard lf > cursor, bytes[lf - 1] == ASCII.cr else { return fail(.bareLineFeed) }
                guard let size = Self.chunkSize(bytes, from: cursor, to: lf - 1) else { return fail(.invalidChunkSize) }
                cursor = lf + 1
                if size == 0 {
                    phase = .trailers(bytes: 0)
                } else {
                    guard size <= head.maxBodyBytes - (written - head.length) else { return fail(.bodyTooLarge) }
                    phase = .chunkData(remaining: size)
                }
            case .chunkData(let remaining):
                let available = min(count - cursor, remaining)
                if available > 0 {
                    if written != cursor {
                        (buffer.baseAddress! + written).copyMemory(from: buffer.baseAddress! + cursor, byteCount: available)
                    }
                    written += available
                    cursor += available
                }
                if available < remaining {
                    phase = .chunkData(remaining: remaining - available)
                    return .needMore
                }
                phase = .chunkDataEnd
            case .chunkDataEnd:
                guard cursor < count else { return .needMore }
                guard buffer[cursor] == ASCII.cr else { return fail(.missingChunkTerminator) }
                guard cursor + 1 < count else { return .needMore }
                guard buffer[cursor + 1] == ASCII.lf else { return fail(.missingChunkTerminator) }
                cursor += 2
                phase = .chunkSize
            case .trailers(let seen):
                let bytes = UnsafeRawBufferPointer(buffer)
                let room = limits.maxHeadBytes - seen
                guard let lf = lineFeed(in: bytes, lineStart: cursor, limit: room) else {
                    return count - cursor > room ? fail(.headTooLarge) : .needMore
                }
                guard lf > cursor, bytes[lf - 1] == ASCII.cr else { return fail(.bareLineFeed) }
                if lf - 1 == cursor {
                    return complete(body: ByteRange(head.length, written), length: lf + 1)
                }
                // A trailer field, checked like a header field and discarded.
                guard case .success = Self.parseField(bytes, at: cursor),
                    !bytes[cursor..<(lf - 1)].contains(ASCII.cr)
                else { return fail(.invalidTrailer) }
                phase = .trailers(bytes: seen + lf + 1 - cursor)
                cursor = lf + 1
            case .head, .fixedBody, .failed:
                preconditionFailure("decodeChunked outside a chunked body")
            }
        }
    }

    /// The offset of the first LF at or after `start`, looking at most `limit` bytes ahead.
    /// Chunked: how far the current chunk-size or trailer line was searched for its LF, so
    /// a line that arrives a byte at a time is not searched again from its start.
    private var lineScanned = 0

    /// The offset of the first LF of the line at `lineStart`, looking at most `limit` bytes
    /// ahead of it; resumes where the last call for the same line stopped.
    private mutating func lineFeed(in bytes: UnsafeRawBufferPointer, lineStart: Int, limit: Int) -> Int? {
        let end = min(bytes.count, lineStart + limit + 1)
        var index = max(lineStart, lineScanned)
        while index < end {
            if bytes[index] == ASCII.lf {
                lineScanned = index + 1
                return index
            }
            index += 1
        }
        lineScanned = index
        return nil
    }

    /// The size on a chunk-size line `start..<end` (without its CRLF): 1 to 16 hex digits,
    /// then chunk extensions (RFC 9112 §7.1.1), which are checked and ignored. Nil when
    /// malformed. A size that does not fit an Int is returned as Int.max (too large).
    static func chunkSize(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
        var index = start
        var size: UInt64 = 0
        while index < end, let digit = ASCII.hexValue(bytes[index]) {
            guard index - start < 16 else { return nil }
            size = size << 4 | UInt64(digit)
            index += 1
        }
        guard index > start else { return nil }
        // chunk-ext = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] ): whitespace only
        // before a `;`, `=` or value, never at the end of the line.
        while index < end {
            while index < end && ASCII.isWhitespace(bytes[index]) { index += 1 }
            guard index < end, bytes[index] == ASCII.semicolon else { return nil }
            index += 1
            while index < end && ASCII.isWhitespace(bytes[index]) { index += 1 }
            let nameStart = index
            while index < end && ASCII.isToken(bytes[index]) { index += 1 }
            guard index > nameStart else { return nil }
            var afterName = index
            while afterName < end && ASCII.isWhitespace(bytes[afterName]) { afterName += 1 }
            guard afterName < end && bytes[afterName] == 0x3D else { continue }
            index = afterName
            index += 1
            while index < end && ASCII.isWhitespace(bytes[index]) { index += 1 }
            guard index < end else { return nil }
            if bytes[index] == 0x22 {
                guard let after = quotedStringEnd(bytes, from: index, to: end) else { return nil }
                index = after
            } else {
                let valueStart = index
                while index < end && ASCII.isToken(bytes[index]) { index += 1 }
                guard index > valueStart else { return nil }
            }
        }
        return size > UInt64(Int.max) ? Int.max : Int(size)
    }

    /// The offset after a quoted-string that starts at `start` (RFC 9110 §5.6.4), or nil.
    private static func quotedStringEnd(_ bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
        var index = start + 1
        while index < end {
            let byte = bytes[index]
            if byte == 0x22 { return index + 1 }
            if byte == 0x5C {
                guard index + 1 < end, ASCII.isFieldValue(bytes[index + 1]) else { return nil }
                index += 2
                continue
            }
            guard ASCII.isFieldValue(byte) else { return nil }
            index += 1
        }
        return nil
    }
}

/// The transfer codings of a request, over every Transfer-Encoding field.
struct TransferCodings {
    var present = false
    var chunkedCount = 0
    var endsWithChunked = false
    var hasOtherCoding = false

    /// Adds one field's codings; false when an element is empty (`chunked,`: refused here,
    /// unlike in other lists, because the framing must read one way only) or does not start
    /// with a token (parameters after `;` are allowed on codings other than chunked).
    mutating func add(_ value: ByteRange, in bytes: UnsafeRawBufferPointer) -> Bool {
        present = true
        return HTTPSyntax.forEachListElementAndEmpty(value, in: bytes) { element in
            var nameEnd = element.lowerBound
            while nameEnd < element.upperBound && ASCII.isToken(bytes[nameEnd]) { nameEnd += 1 }
            guard nameEnd > element.lowerBound else { return false }
            if nameEnd == element.upperBound && element.equalsIgnoringCase("chunked", in: bytes) {
                chunkedCount += 1
                endsWithChunked = true
            } else {
                hasOtherCoding = true
                endsWithChunked = false
            }
            return true
        }
    }
}
