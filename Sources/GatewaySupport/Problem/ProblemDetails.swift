/// An `application/problem+json` error body (RFC 9457) as `openapi.yaml` describes it:
/// `{"type","title","status","detail","requestId","errors"?}`.
///
/// `errors` is written only when present (validation failures). The transport renders errors;
/// this type gives it the exact shape and key order.
public struct ProblemDetails: Sendable, Hashable, ContractJSONEncodable {
    /// A URI reference; `about:blank` for plain HTTP errors.
    public var type: String
    public var title: String
    public var status: Int
    public var detail: String
    public var requestId: String
    public var errors: [FieldError]?

    public init(type: String = "about:blank", title: String, status: Int, detail: String, requestId: String, errors: [FieldError]? = nil) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.requestId = requestId
        self.errors = errors
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("type"); writer.string(type)
        writer.key("title"); writer.string(title)
        writer.key("status"); writer.integer(Int64(status))
        writer.key("detail"); writer.string(detail)
        writer.key("requestId"); writer.string(requestId)
        if let errors {
            writer.key("errors")
            writer.beginArray()
            for error in errors {
                writer.beginObject()
                writer.key("field"); writer.string(error.field)
                writer.key("message"); writer.string(error.message)
                writer.endObject()
            }
            writer.endArray()
        }
        writer.endObject()
    }

    /// `body`, a problem object this type (or ``ReadinessStatus``) wrote, with `"traceId"`
    /// as its last member. The transport adds it to every problem it sends, whoever built
    /// the body; `traceID` is 32 hex digits (``TraceContext``), which need no escaping.
    public static func addingTraceID(_ traceID: String, to body: [UInt8]) -> [UInt8] {
        guard body.count > 2, body.last == UInt8(ascii: "}") else { return body }
        var body = body
        body.removeLast()
        body.append(contentsOf: #","traceId":""#.utf8)
        body.append(contentsOf: traceID.utf8)
        body.append(contentsOf: #""}"#.utf8)
        return body
    }
}
