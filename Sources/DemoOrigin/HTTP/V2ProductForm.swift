import Foundation
import GatewayModels
import HTTPInterface

/// The body of a v2/v2b `POST /api/products`: multipart/form-data with one `params` part
/// (JSON, read by ``V2ProductParams``; a part `Content-Type` is optional, as clients sent it
/// both ways) and one to five `images` parts.
///
/// Rejects, with 400: another content type; a malformed body; no `params` part, or two
/// (Spring's `Required part 'params' is not present.`); bad `params`; no `images` part (`images[]`, the
/// v1 name, does not count); more than five images; an image that is neither PNG nor JPEG
/// (by its bytes) or is larger than 300 KB (307 200 bytes, the course requirement). Other
/// parts are ignored.
struct V2ProductForm: Sendable {
    static let maxImages = 5
    static let maxImageBytes = 307_200

    var params: V2ProductParams
    var images: [ItemForm.Image]

    /// Reads the body of `request`.
    /// - Throws: ``V2Failure`` 400 naming the first problem.
    init(request: GatewayRequest, generation: OriginGeneration) throws(V2Failure) {
        guard let contentType = request.headers["Content-Type"],
            HeaderParameters(parsing: contentType).value == "multipart/form-data"
        else { throw .badRequest("body must be multipart/form-data") }
        let parts: [MultipartPart]
        do {
            parts = try MultipartParser(contentType: contentType).parse(request.body)
        } catch {
            throw .badRequest(error.description)
        }
        let paramsParts = parts.filter { $0.name == "params" }
        guard let paramsPart = paramsParts.first else { throw .badRequest("Required part 'params' is not present.") }
        guard paramsParts.count == 1 else { throw .badRequest("params sent twice") }
        params = try V2ProductParams(json: paramsPart.body, generation: generation)
        let imageParts = parts.filter { $0.name == "images" }
        guard !imageParts.isEmpty else { throw .badRequest("Required part 'images' is not present.") }
        guard imageParts.count <= Self.maxImages else { throw .badRequest("at most \(Self.maxImages) images") }
        var images: [ItemForm.Image] = []
        for (index, part) in imageParts.enumerated() {
            guard let kind = ImageKind(magic: part.body) else { throw .badRequest("image \(index + 1) is not a PNG or JPEG image") }
            guard part.body.count <= Self.maxImageBytes else { throw .badRequest("image \(index + 1) is larger than 300 KB") }
            images.append(ItemForm.Image(bytes: part.body, kind: kind))
        }
        self.images = images
    }
}
