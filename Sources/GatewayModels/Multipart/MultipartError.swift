/// Why a multipart/form-data body or its `Content-Type` could not be read.
///
/// Each case says where it went wrong; ``description`` is a sentence fit for a 400 response's
/// `detail`.
public enum MultipartError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `Content-Type` is not `multipart/form-data` or has no `boundary` parameter.
    case notMultipartFormData(String)
    /// The boundary is empty, longer than 70 characters, or has characters RFC 2046 forbids.
    case invalidBoundary(String)
    /// No `--boundary` line starts the body.
    case missingOpeningDelimiter
    /// The body ends before the closing `--boundary--`.
    case missingCloseDelimiter
    /// A delimiter line has something other than whitespace after the boundary.
    case malformedDelimiter(partIndex: Int)
    /// A part's header section never ends with an empty line, or is too long.
    case unterminatedHeaders(partIndex: Int)
    /// A header line without a `:`.
    case invalidHeader(partIndex: Int, line: String)
    /// A part has no `Content-Disposition: form-data; name=…`.
    case missingContentDisposition(partIndex: Int)
    /// More parts than the parser's limit.
    case tooManyParts(limit: Int)

    public var description: String {
        switch self {
        case .notMultipartFormData(let contentType):
            return "Content-Type \"\(contentType)\" is not multipart/form-data with a boundary."
        case .invalidBoundary(let boundary):
            return "The multipart boundary \"\(boundary)\" is not valid (1-70 characters from RFC 2046)."
        case .missingOpeningDelimiter:
            return "The multipart body does not start with a boundary line."
        case .missingCloseDelimiter:
            return "The multipart body ends before its closing boundary."
        case .malformedDelimiter(let index):
            return "The boundary line before part \(index) is malformed."
        case .unterminatedHeaders(let index):
            return "The headers of part \(index) do not end with an empty line."
        case .invalidHeader(let index, let line):
            return "Part \(index) has a malformed header line \"\(line)\"."
        case .missingContentDisposition(let index):
            return "Part \(index) has no Content-Disposition: form-data header with a name."
        case .tooManyParts(let limit):
            return "The multipart body has more than \(limit) parts."
        }
    }
}
