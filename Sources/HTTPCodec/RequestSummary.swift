/// A request as text, whatever buffer its ranges point into: what two readings of one request
/// (an HTTP/2 request's fields read directly, and its HTTP/1.1 message decoded) are compared
/// by, in tests and the `http2-request` fuzz target.
extension RequestHead {
    /// Every fact of the head, each range's bytes spelled out.
    public func summary(in bytes: UnsafeRawBufferPointer) -> String {
        func text(_ range: ByteRange?) -> String { range.map { "\"\($0.string(in: bytes))\"" } ?? "nil" }
        let fieldList = fields.map { "\($0.name.string(in: bytes)): \($0.value.string(in: bytes))" }.joined(separator: " | ")
        return "method \(text(method)) target \(text(target)) path \(text(path)) query \(text(query)) version 1.\(minorVersion) "
            + "fields [\(fieldList)] host \(text(host)) content-length \(contentLength.map(String.init) ?? "nil") chunked \(chunked) "
            + "keep-alive \(keepAlive) continue \(expectsContinue) unsupported-expectation \(hasUnsupportedExpectation) "
            + "max-body \(maxBodyBytes) length \(length)"
    }
}

extension RequestDecodeResult {
    /// The verdict, and the head (and body) it carries, as text.
    public func summary(in bytes: UnsafeRawBufferPointer) -> String {
        switch self {
        case .needMore: "need more"
        case .head(let head): "head: " + head.summary(in: bytes)
        case .complete(let message): "complete: " + message.head.summary(in: bytes) + " body \"\(message.body.string(in: bytes))\""
        case .failure(let error): "failure: \(error) (\(error.status))"
        }
    }
}
