/// Why a request stream was refused. Every one ends the connection: after the answer the
/// server reads nothing more from it, so no byte that follows can be taken as a request.
public enum RequestError: Error, Sendable, Equatable {
    /// A line ended with LF alone (RFC 9112 §2.2).
    case bareLineFeed
    /// A CR not followed by LF (RFC 9112 §2.2).
    case bareCarriageReturn
    /// The request line is not `method SP target SP HTTP/x.y` (RFC 9112 §3).
    case malformedRequestLine
    /// The method is not a token (RFC 9110 §9.1).
    case invalidMethod
    /// The target holds a space, a control byte or a byte above 0x7E (RFC 9112 §3.2).
    case invalidTarget
    /// The request-target is longer than the limit.
    case targetTooLong
    /// The version is not `HTTP/DIGIT.DIGIT` (RFC 9112 §2.3).
    case malformedVersion
    /// A major version other than 1 (RFC 9110 §15.6.6).
    case unsupportedVersion
    /// A line starting with whitespace: obs-fold, or whitespace between the start line and
    /// the first field (RFC 9112 §5.2, §2.2).
    case foldedLine
    /// A field line without a colon, with an empty name, or a name that is not a token.
    case invalidFieldName
    /// Whitespace between a field name and its colon (RFC 9112 §5.1).
    case spaceBeforeColon
    /// NUL, CR, LF, another control byte or DEL in a field value (RFC 9110 §5.5).
    case invalidFieldValue(UInt8)
    /// Request line and fields together beyond the limit, or too many fields.
    case headTooLarge
    /// Content-Length more than once, a list, not plain digits, or too large to represent
    /// (RFC 9110 §8.6, RFC 9112 §6.3).
    case duplicateContentLength
    case invalidContentLength
    /// Transfer-Encoding together with Content-Length (RFC 9112 §6.1, §6.3).
    case transferEncodingWithContentLength
    /// Transfer-Encoding whose final coding is not chunked, chunked applied twice, or
    /// Transfer-Encoding on an HTTP/1.0 request (RFC 9112 §6.1, §6.3).
    case invalidTransferEncoding
    /// A transfer coding the server does not implement (RFC 9112 §6.1: 501).
    case unsupportedTransferCoding
    /// No Host in an HTTP/1.1 request, more than one Host, or a Host that is no authority
    /// (RFC 9112 §3.2).
    case missingHost
    case duplicateHost
    case invalidHost
    /// A body on HEAD, TRACE or CONNECT, which a front proxy may not read.
    case bodyNotAllowed
    /// A body longer than the limit (by Content-Length or by its chunks).
    case bodyTooLarge
    /// A chunk size that is not 1 to 16 hex digits, or a malformed chunk extension
    /// (RFC 9112 §7.1).
    case invalidChunkSize
    /// Chunk data not followed by CRLF (RFC 9112 §7.1).
    case missingChunkTerminator
    /// A trailer field line that is malformed (same rules as header fields).
    case invalidTrailer

    /// The status a server answers with.
    public var status: Int {
        switch self {
        case .targetTooLong: 414
        case .headTooLarge: 431
        case .bodyTooLarge: 413
        case .unsupportedVersion: 505
        case .unsupportedTransferCoding: 501
        default: 400
        }
    }

    /// One sentence for the problem's `detail`.
    public var detail: String {
        switch self {
        case .bareLineFeed: "A line ends with LF without CR."
        case .bareCarriageReturn: "A CR is not followed by LF."
        case .malformedRequestLine: "The request line is malformed."
        case .invalidMethod: "The method is not a valid token."
        case .invalidTarget: "The request target contains a space or a control byte."
        case .targetTooLong: "The request target is too long."
        case .malformedVersion: "The HTTP version is malformed."
        case .unsupportedVersion: "Only HTTP/1.0 and HTTP/1.1 are supported."
        case .foldedLine: "A header line starts with whitespace (obs-fold is not accepted)."
        case .invalidFieldName: "A header field name is empty or not a valid token."
        case .spaceBeforeColon: "A header field name is followed by whitespace before the colon."
        case .invalidFieldValue(let byte): "A header value contains the control byte 0x\(String(byte, radix: 16))."
        case .headTooLarge: "The request header fields are too large."
        case .duplicateContentLength: "Content-Length appears more than once."
        case .invalidContentLength: "Content-Length must be decimal digits only."
        case .transferEncodingWithContentLength: "Transfer-Encoding and Content-Length must not both be present."
        case .invalidTransferEncoding: "Transfer-Encoding must end with chunked, once, on an HTTP/1.1 request."
        case .unsupportedTransferCoding: "Only the chunked transfer coding is implemented."
        case .missingHost: "The Host header is required."
        case .duplicateHost: "Host appears more than once."
        case .invalidHost: "The Host header is not a valid authority."
        case .bodyNotAllowed: "HEAD, TRACE and CONNECT requests must not have a body."
        case .bodyTooLarge: "The request body is too large."
        case .invalidChunkSize: "A chunk size is not 1 to 16 hexadecimal digits."
        case .missingChunkTerminator: "Chunk data is not followed by CRLF."
        case .invalidTrailer: "A trailer field is malformed."
        }
    }
}
