import Foundation
import GatewaySupport

/// The product fields one origin request carries, in the origin's words, shared by the create
/// and update encoders so both spell every generation the same way.
///
/// Meanings: v1 `discounted_price` is the sale price; v2/v2b `discounted_price` is the discount
/// *amount* (price − sale price). The description key is `descriptions` in v1 and v2 requests
/// and `description` in v2b.
struct OriginFormFields {
    var title: String?
    var description: String?
    var price: Decimal?
    var salePrice: Decimal?
    var currency: String?
    var stock: Int64?
    var images: [ImageUpload]?

    /// The fields a patch sets (a create is a patch that sets them all).
    init(_ patch: ProductPatch) {
        title = patch.title
        description = patch.description
        price = patch.price
        salePrice = patch.discountedPrice
        currency = patch.currency
        stock = patch.stock
        images = patch.images
    }

    /// v1 multipart: text parts then one `images[]` part per file.
    func v1Multipart(password: String) -> MultipartFormData {
        var parts: [MultipartPart] = []
        if let title { parts.append(.field("title", title)) }
        if let description { parts.append(.field("descriptions", description)) }
        if let price { parts.append(.field("price", DecimalText.json(price))) }
        if let currency { parts.append(.field("currency", currency)) }
        if let stock { parts.append(.field("stock", String(stock))) }
        if let salePrice { parts.append(.field("discounted_price", DecimalText.json(salePrice))) }
        parts.append(.field("password", password))
        for image in images ?? [] {
            parts.append(.file("images[]", filename: image.filename, contentType: image.kind.mimeType, data: image.data))
        }
        return MultipartFormData(parts: parts)
    }

    /// The v2/v2b `params` JSON object (POST part, or the whole PATCH body).
    ///
    /// `discounted_price` (the amount) is written when either price changes: from the new
    /// sale price and the new or `current` list price; or, when only the list price changes,
    /// from the `current` sale price, which stays the sale price (0 when there is none).
    ///
    /// - Throws: ``ValidationFailure`` when a sale price is given without any list price to
    ///   turn it into v2's discount amount, or when the sale price would end up above the
    ///   list price.
    func v2Params(secret: String, generation: OriginGeneration, current: CurrentPrices?) throws(ValidationFailure) -> JSONWriter {
        var writer = JSONWriter()
        writer.beginObject()
        if let title { writer.key("name"); writer.string(title) }
        if let description { writer.key(generation == .v2b ? "description" : "descriptions"); writer.string(description) }
        if let price { writer.key("price"); writer.decimal(price) }
        if let currency { writer.key("currency"); writer.string(currency) }
        if let salePrice {
            guard let listPrice = price ?? current?.price else {
                throw ValidationFailure([FieldError(field: "price", message: "price is required with discountedPrice for this origin.")])
            }
            guard salePrice <= listPrice else {
                throw ValidationFailure([FieldError(
                    field: "discountedPrice",
                    message: "discountedPrice (the sale price) must not be above the product's price, \(DecimalText.json(listPrice)).")])
            }
            writer.key("discounted_price"); writer.decimal(listPrice - salePrice)
        } else if let price {
            var amount: Decimal = 0
            if let sale = current?.salePrice {
                guard sale <= price else {
                    throw ValidationFailure([FieldError(
                        field: "discountedPrice",
                        message: "The product's sale price, \(DecimalText.json(sale)), is above the new price: send discountedPrice too.")])
                }
                amount = price - sale
            }
            writer.key("discounted_price"); writer.decimal(amount)
        }
        if let stock { writer.key("stock"); writer.integer(stock) }
        writer.key("secret"); writer.string(secret)
        writer.endObject()
        return writer
    }

    /// v2/v2b POST multipart: a `params` JSON part, then one `images` part per file.
    func v2Multipart(secret: String, generation: OriginGeneration) throws(ValidationFailure) -> MultipartFormData {
        let params = try v2Params(secret: secret, generation: generation, current: nil)
        var parts = [MultipartPart(name: "params", contentType: "application/json", body: params.bytes)]
        for image in images ?? [] {
            parts.append(.file("images", filename: image.filename, contentType: image.kind.mimeType, data: image.data))
        }
        return MultipartFormData(parts: parts)
    }
}
