/// What a request's header fields say about framing, `Host`, `Connection` and `Expect`, noted
/// field by field, and the checks made once the head is complete. One set of rules for both
/// protocols: `RequestDecoder` notes each HTTP/1.1 field line, `HTTP2RequestAssembly` each
/// HTTP/2 field, so a request is judged alike whichever way it came.
///
/// Pure value; no I/O.
struct RequestHeadChecks {
    var hosts = 0
    var contentLengths = 0
    var transferCodings = TransferCodings()
    var closeRequested = false
    var keepAliveRequested = false

    /// Notes `field` (already appended to `head.fields`), setting what it says in `head`; the
    /// error that refuses the request, or nil.
    mutating func note(_ field: HeaderField, head: inout RequestHead, in bytes: UnsafeRawBufferPointer) -> RequestError? {
        let name = field.name
        switch name.count {
        case 4 where name.equalsIgnoringCase("host", in: bytes):
            hosts += 1
            head.host = field.value
        case 14 where name.equalsIgnoringCase("content-length", in: bytes):
            contentLengths += 1
            guard contentLengths == 1 else { return .duplicateContentLength }
            guard let length = RequestDecoder.decimal(field.value, in: bytes) else { return .invalidContentLength }
            head.contentLength = length
        case 17 where name.equalsIgnoringCase("transfer-encoding", in: bytes):
            guard transferCodings.add(field.value, in: bytes) else { return .invalidTransferEncoding }
        case 10 where name.equalsIgnoringCase("connection", in: bytes):
            HTTPSyntax.forEachListElement(field.value, in: bytes) { element in
                if element.equalsIgnoringCase("close", in: bytes) { closeRequested = true }
                if element.equalsIgnoringCase("keep-alive", in: bytes) { keepAliveRequested = true }
                return true
            }
        case 6 where name.equalsIgnoringCase("expect", in: bytes):
            if field.value.equalsIgnoringCase("100-continue", in: bytes) {
                head.expectsContinue = true
            } else {
                head.hasUnsupportedExpectation = true
            }
        default:
            break
        }
        return nil
    }

    /// The checks that need the whole head (Host, framing, body rules, the route's body
    /// limit), setting `chunked`, `maxBodyBytes` and `keepAlive`; the error, or nil.
    func finish(_ head: inout RequestHead, limits: RequestLimits, in bytes: UnsafeRawBufferPointer) -> RequestError? {
        if hosts > 1 { return .duplicateHost }
        if let host = head.host, !RequestDecoder.isAuthority(host, in: bytes) { return .invalidHost }
        if hosts == 0 && head.minorVersion >= 1 { return .missingHost }
        let codings = transferCodings
        if codings.present {
            if contentLengths > 0 { return .transferEncodingWithContentLength }
            if head.minorVersion == 0 || !codings.endsWithChunked || codings.chunkedCount > 1 {
                return .invalidTransferEncoding
            }
            if codings.hasOtherCoding { return .unsupportedTransferCoding }
            head.chunked = true
        }
        if head.hasBody && RequestDecoder.forbidsBody(head.method, in: bytes) { return .bodyNotAllowed }
        head.maxBodyBytes = limits.maxBodyBytes(method: head.method, path: head.path, in: bytes)
        if let length = head.contentLength, length > head.maxBodyBytes { return .bodyTooLarge }
        head.keepAlive = head.minorVersion >= 1 ? !closeRequested : keepAliveRequested && !closeRequested
        return nil
    }
}
