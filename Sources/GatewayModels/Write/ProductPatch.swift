import Foundation

/// A validated update (`PATCH /v1/products/{id}`): every field optional except `password`.
///
/// The same checks as ``ProductDraft`` for the fields present; at most 5 images, which replace
/// the product's images when sent. A patch must change something: one with only a password is
/// rejected (`body` error). When both prices are present, `discountedPrice` must not be above
/// `price`.
public struct ProductPatch: Sendable, Hashable {
    public var title: String?
    public var description: String?
    public var price: Decimal?
    /// The new sale price (contract meaning).
    public var discountedPrice: Decimal?
    public var currency: String?
    public var stock: Int64?
    public var password: String
    /// New images, or `nil` to keep the current ones.
    public var images: [ImageUpload]?

    /// Reads and validates a JSON body.
    /// - Throws: ``ValidationFailure`` with every field error.
    public static func decode(
        json: [UInt8], limits: DraftLimits = DraftLimits(), preparer: (any UploadImagePreparer)? = nil
    ) throws(ValidationFailure) -> ProductPatch {
        try validate(DraftInput.json(json), limits: limits, preparer: preparer)
    }

    /// Reads and validates a multipart/form-data body.
    /// - Throws: ``ValidationFailure`` with every field error.
    public static func decode(
        multipart body: [UInt8], contentType: String, limits: DraftLimits = DraftLimits(), preparer: (any UploadImagePreparer)? = nil
    ) throws(ValidationFailure) -> ProductPatch {
        try validate(DraftInput.multipart(body: body, contentType: contentType), limits: limits, preparer: preparer)
    }

    static func validate(_ input: DraftInput, limits: DraftLimits, preparer: (any UploadImagePreparer)? = nil) throws(ValidationFailure) -> ProductPatch {
        var reader = DraftFieldReader(input: input, limits: limits, preparer: preparer)
        var patch = ProductPatch(password: "")
        patch.title = reader.string("title", required: false, length: limits.title)
        patch.description = reader.string("description", required: false, length: limits.description)
        patch.price = reader.amount("price", required: false)
        patch.discountedPrice = reader.amount("discountedPrice", required: false)
        patch.currency = reader.currency("currency", required: false)
        patch.stock = reader.count("stock", required: false)
        let password = reader.string("password", required: limits.passwordRequired, length: limits.password)
        // Absent: keep the current images. Present: 1 to 5 that replace them (an empty list is
        // refused rather than read as "keep", as openapi.yaml's minItems says).
        patch.images = reader.images(count: 1...limits.maxImages, required: false)
        if let price = patch.price, let sale = patch.discountedPrice, sale > price {
            reader.fail("discountedPrice", "discountedPrice (the sale price) must not be above price.")
        }
        if reader.errors.isEmpty, patch.isEmpty {
            reader.fail("body", "Nothing to update: send at least one field besides password.")
        }
        guard reader.errors.isEmpty else { throw ValidationFailure(reader.errors) }
        patch.password = password ?? ""
        return patch
    }

    /// A patch with just the password; set the fields to change.
    public init(password: String) {
        self.password = password
    }

    /// Whether no field besides the password is set.
    public var isEmpty: Bool {
        title == nil && description == nil && price == nil && discountedPrice == nil
            && currency == nil && stock == nil && images == nil
    }
}
