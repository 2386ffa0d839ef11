import Foundation
import GatewaySupport

/// A client's create/update body before validation, from JSON or from multipart/form-data,
/// with field names in the contract's camelCase.
///
/// - JSON: `{"title", "description", "price", "discountedPrice", "currency", "stock",
///   "password", "images": [{"filename", "contentType", "data"(base64)}]}`. `null` is kept:
///   only members the contract declares nullable take it (the reader decides), and `images`
///   never does.
/// - multipart: one text part per field, file parts named `images` (or `images[]`).
struct DraftInput: Sendable {
    enum Value: Sendable {
        /// A multipart text part: numbers arrive as text.
        case text(String)
        case json(JSONValue)
    }

    /// An image as sent, before its checks.
    struct RawImage: Sendable {
        var filename: String?
        var data: [UInt8]?
        /// Set when the entry itself is malformed (not an object, bad base64, ...).
        var error: FieldError?
    }

    var fields: [String: Value] = [:]
    /// `nil` when the client sent no `images` at all.
    var images: [RawImage]?
    /// Errors about the body's shape found while reading it.
    var errors: [FieldError] = []

    /// Reads a JSON object body. Throws when the body is not a JSON object at all.
    static func json(_ bytes: [UInt8]) throws(ValidationFailure) -> DraftInput {
        guard case .object(let object)? = JSONValue.parse(bytes) else {
            throw ValidationFailure([FieldError(field: "body", message: "The body must be a JSON object.")])
        }
        var input = DraftInput()
        for (key, value) in object where key != "images" {
            input.fields[key] = .json(value)
        }
        switch object["images"] {
        case nil:
            break
        case .array(let entries)?:
            input.images = entries.enumerated().map { index, entry in jsonImage(entry, index: index) }
        case let other?:
            input.errors.append(FieldError(field: "images", message: "images must be an array, not \(other.typeDescription)."))
        }
        return input
    }

    private static func jsonImage(_ entry: JSONValue, index: Int) -> RawImage {
        let field = "images[\(index)]"
        guard case .object(let object) = entry else {
            return RawImage(error: FieldError(field: field, message: "Each image must be an object with filename, contentType and data."))
        }
        var image = RawImage()
        for key in ["filename", "contentType"] {
            switch object[key] {
            case nil, .null?, .string?: continue
            default:
                image.error = FieldError(field: "\(field).\(key)", message: "\(key) must be a string.")
                return image
            }
        }
        if case .string(let name)? = object["filename"] { image.filename = name }
        guard case .string(let text)? = object["data"] else {
            image.error = FieldError(field: "\(field).data", message: "data is required: the image bytes in base64.")
            return image
        }
        var payload = Substring(text)
        if payload.hasPrefix("data:"), let comma = payload.firstIndex(of: ",") {
            payload = payload[payload.index(after: comma)...]
        }
        guard let data = Data(base64Encoded: String(payload)) else {
            image.error = FieldError(field: "\(field).data", message: "data is not valid base64.")
            return image
        }
        image.data = [UInt8](data)
        return image
    }

    /// Reads multipart/form-data parts. Unknown text parts are ignored.
    static func multipart(_ parts: [MultipartPart]) -> DraftInput {
        var input = DraftInput()
        for part in parts {
            if part.name == "images" || part.name == "images[]" {
                input.images = (input.images ?? []) + [RawImage(filename: part.filename, data: part.body)]
            } else if part.filename == nil, input.fields[part.name] == nil {
                input.fields[part.name] = .text(part.text)
            }
        }
        return input
    }

    /// Reads a multipart body given its `Content-Type` header value.
    static func multipart(body: [UInt8], contentType: String) throws(ValidationFailure) -> DraftInput {
        do {
            return multipart(try MultipartParser(contentType: contentType).parse(body))
        } catch {
            throw ValidationFailure([FieldError(field: "body", message: error.description)])
        }
    }
}
