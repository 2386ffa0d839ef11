import Foundation

/// A validated new product (`POST /v1/products`), in the contract's terms.
///
/// Only ``decode(json:limits:)`` and ``decode(multipart:contentType:limits:)`` make one, so a
/// `ProductDraft` always satisfies ``DraftLimits``: title and description lengths, a
/// non-negative exact `price`, `discountedPrice` (the sale price, optional) not above `price`,
/// an ISO 4217 `currency`, a non-negative 64-bit `stock`, a `password`, and 1–5 JPEG/PNG
/// images within the size limit. Validation reports every problem at once.
public struct ProductDraft: Sendable, Hashable {
    public var title: String
    public var description: String
    public var price: Decimal
    /// The sale price, or `nil`. Contract meaning, whatever the origin calls it.
    public var discountedPrice: Decimal?
    public var currency: String
    public var stock: Int64
    /// The item password (v1 authorises updates and deletes with it; v2/v2b: the vendor
    /// secret). Empty when none was sent, which only ``DraftLimits/passwordRequired`` false
    /// allows.
    public var password: String
    public var images: [ImageUpload]

    /// Reads and validates a JSON body (images as `{filename, contentType, data}` with base64 data).
    /// - Throws: ``ValidationFailure`` with every field error.
    public static func decode(
        json: [UInt8], limits: DraftLimits = DraftLimits(), preparer: (any UploadImagePreparer)? = nil
    ) throws(ValidationFailure) -> ProductDraft {
        try validate(DraftInput.json(json), limits: limits, preparer: preparer)
    }

    /// Reads and validates a multipart/form-data body (text fields in camelCase, file parts named `images`).
    /// - Throws: ``ValidationFailure`` with every field error, or one `body` error when the multipart framing is broken.
    public static func decode(
        multipart body: [UInt8], contentType: String, limits: DraftLimits = DraftLimits(), preparer: (any UploadImagePreparer)? = nil
    ) throws(ValidationFailure) -> ProductDraft {
        try validate(DraftInput.multipart(body: body, contentType: contentType), limits: limits, preparer: preparer)
    }

    static func validate(_ input: DraftInput, limits: DraftLimits, preparer: (any UploadImagePreparer)? = nil) throws(ValidationFailure) -> ProductDraft {
        var reader = DraftFieldReader(input: input, limits: limits, preparer: preparer)
        let title = reader.string("title", required: true, length: limits.title)
        let description = reader.string("description", required: true, length: limits.description)
        let price = reader.amount("price", required: true)
        let discountedPrice = reader.amount("discountedPrice", required: false, nullable: true)
        let currency = reader.currency("currency", required: true)
        let stock = reader.count("stock", required: true)
        let password = reader.string("password", required: limits.passwordRequired, length: limits.password)
        let images = reader.images(count: 1...limits.maxImages)
        if let price, let discountedPrice, discountedPrice > price {
            reader.fail("discountedPrice", "discountedPrice (the sale price) must not be above price.")
        }
        guard reader.errors.isEmpty, let title, let description, let price, let currency, let stock, let images else {
            throw ValidationFailure(reader.errors)
        }
        return ProductDraft(
            title: title, description: description, price: price, discountedPrice: discountedPrice,
            currency: currency, stock: stock, password: password ?? "", images: images
        )
    }
}
