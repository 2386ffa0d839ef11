import Foundation
import GatewayModels
import HTTPInterface
import GatewaySupport

/// The fields of a v1 `POST /item` or `PATCH /item/{id}` body (multipart/form-data), read
/// and checked; absent fields are nil.
///
/// Accepts what clients sent the real server: any boundary, quoted or not; parts in any
/// order; raw UTF-8 (and RFC 5987) file names; unknown fields (ignored). Rejects, with 400: a
/// malformed body, a field sent twice, a number that is not one (`price`,
/// `discounted_price`: non-negative decimals; `stock`: a non-negative 64-bit integer), a
/// currency that is not three capital letters, an empty text field, more than five
/// `images[]` parts, and an image that is neither PNG nor JPEG (by its bytes).
struct ItemForm: Sendable {
    struct Image: Sendable {
        var bytes: [UInt8]
        var kind: ImageKind
    }

    var title: String?
    var descriptions: String?
    var price: Decimal?
    var currency: String?
    var stock: Int64?
    var discountedPrice: Decimal?
    var password: String?
    var images: [Image] = []

    static let maxImages = 5

    /// A form that sets only images (``DemoOrigin/addItem(photos:)``).
    init(images: [Image]) {
        self.images = images
    }
    static let textFields: Set<String> = ["title", "descriptions", "price", "currency", "stock", "discounted_price", "password"]

    /// Reads the body of `request`.
    /// - Throws: ``V1Failure`` (415 for another content type, 400 for the rest).
    init(request: GatewayRequest) throws(V1Failure) {
        guard let contentType = request.headers["Content-Type"],
            HeaderParameters(parsing: contentType).value == "multipart/form-data"
        else { throw .unsupportedMediaType("multipart/form-data") }
        let parts: [MultipartPart]
        do {
            parts = try MultipartParser(contentType: contentType).parse(request.body)
        } catch {
            throw .badRequest(error.description)
        }
        var texts: [String: String] = [:]
        for part in parts {
            if part.name == "images[]" {
                guard let kind = ImageKind(magic: part.body) else {
                    throw .badRequest("Image \(images.count + 1) is not a PNG or JPEG image.")
                }
                images.append(Image(bytes: part.body, kind: kind))
            } else if Self.textFields.contains(part.name) {
                guard texts[part.name] == nil else { throw .badRequest("Duplicate value for key '\(part.name)'.") }
                texts[part.name] = part.text
            }
        }
        guard images.count <= Self.maxImages else { throw .tooManyImages }
        title = try Self.text(texts, "title")
        descriptions = try Self.text(texts, "descriptions")
        currency = try Self.text(texts, "currency")
        password = try Self.text(texts, "password")
        if let currency, !(currency.utf8.count == 3 && currency.utf8.allSatisfy({ (65...90).contains($0) })) {
            throw .badRequest("Value of 'currency' must be a three-letter code such as KRW.")
        }
        price = try Self.amount(texts, "price")
        discountedPrice = try Self.amount(texts, "discounted_price")
        if let text = texts["stock"] {
            guard let stock = Int64(text), stock >= 0, text.utf8.allSatisfy({ (48...57).contains($0) }) else {
                throw .badRequest("Value of type 'Int' required for key 'stock'.")
            }
            self.stock = stock
        }
    }

    /// Checks that a create form has every field the v1 server required.
    func requireComplete() throws(V1Failure) {
        let missing: [(String, Bool)] = [
            ("title", title == nil), ("descriptions", descriptions == nil), ("price", price == nil),
            ("currency", currency == nil), ("stock", stock == nil), ("password", password == nil),
        ]
        if let (name, _) = missing.first(where: { $0.1 }) { throw .badRequest("Value required for key '\(name)'.") }
        if images.isEmpty { throw .badRequest("Value required for key 'images[]'.") }
    }

    private static func text(_ texts: [String: String], _ name: String) throws(V1Failure) -> String? {
        guard let value = texts[name] else { return nil }
        guard !value.isEmpty else { throw .badRequest("Value required for key '\(name)'.") }
        return value
    }

    private static func amount(_ texts: [String: String], _ name: String) throws(V1Failure) -> Decimal? {
        guard let text = texts[name] else { return nil }
        guard let value = DecimalText.parse(text), value >= 0 else {
            throw .badRequest("Value of type 'Decimal' required for key '\(name)'.")
        }
        return value
    }
}
