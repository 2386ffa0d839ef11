/// One part of a multipart/form-data body: a text field or a file.
public struct MultipartPart: Sendable, Hashable {
    /// The form field name (`Content-Disposition` `name`).
    public var name: String
    /// The file name for file parts (`filename*` preferred over `filename` when both are sent).
    public var filename: String?
    /// The part's `Content-Type`, when it has one.
    public var contentType: String?
    /// Every header of the part, names as sent, in order.
    public var headers: [MultipartHeader]
    /// The part's content, exactly the bytes between its headers and the next delimiter.
    public var body: [UInt8]

    public init(name: String, filename: String? = nil, contentType: String? = nil, headers: [MultipartHeader] = [], body: [UInt8]) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.headers = headers
        self.body = body
    }

    /// A text field part.
    public static func field(_ name: String, _ value: String) -> MultipartPart {
        MultipartPart(name: name, body: Array(value.utf8))
    }

    /// A file part.
    public static func file(_ name: String, filename: String, contentType: String, data: [UInt8]) -> MultipartPart {
        MultipartPart(name: name, filename: filename, contentType: contentType, body: data)
    }

    /// The body as UTF-8 text (invalid sequences replaced), for text fields.
    public var text: String {
        String(decoding: body, as: UTF8.self)
    }

    /// The first header with this name, compared case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}
