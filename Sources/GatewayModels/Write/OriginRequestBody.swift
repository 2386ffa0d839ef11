import GatewaySupport

/// A request body ready for the origin: its `Content-Type` header value and its bytes.
public struct OriginRequestBody: Sendable, Hashable {
    public var contentType: String
    public var bytes: [UInt8]

    public init(contentType: String, bytes: [UInt8]) {
        self.contentType = contentType
        self.bytes = bytes
    }

    init(multipart: MultipartFormData) {
        self.init(contentType: multipart.contentType, bytes: multipart.encoded())
    }

    init(json writer: JSONWriter) {
        self.init(contentType: "application/json", bytes: writer.bytes)
    }
}
