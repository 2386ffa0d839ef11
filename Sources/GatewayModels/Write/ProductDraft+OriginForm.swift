extension ProductDraft {
    /// The origin's create request body for `generation`.
    ///
    /// - v1 (`POST /item`): multipart/form-data with `title`, `descriptions`, `price`,
    ///   `currency`, `stock`, `discounted_price` (the sale price, only when set), `password`,
    ///   then one `images[]` part per file (file name and detected `Content-Type`).
    /// - v2/v2b (`POST /api/products`): multipart/form-data with a `params` part
    ///   (`application/json`: `name`, `descriptions` (v2) or `description` (v2b), `price`,
    ///   `currency`, `discounted_price` as the discount amount, `stock`, `secret`) and one
    ///   `images` part per file.
    ///
    /// Each call picks a fresh random boundary.
    /// - Parameter secret: the vendor secret for v2/v2b (unused by v1).
    public func originBody(for generation: OriginGeneration, secret: String = "") -> OriginRequestBody {
        let fields = OriginFormFields(asPatch)
        switch generation {
        case .v1:
            return OriginRequestBody(multipart: fields.v1Multipart(password: password))
        case .v2, .v2b:
            // A draft always has a price, so the discount amount can always be computed.
            guard let multipart = try? fields.v2Multipart(secret: secret, generation: generation) else {
                preconditionFailure("a ProductDraft always has a price")
            }
            return OriginRequestBody(multipart: multipart)
        }
    }
}

extension ProductDraft {
    /// The draft as a patch that sets every field.
    var asPatch: ProductPatch {
        var patch = ProductPatch(password: password)
        patch.title = title
        patch.description = description
        patch.price = price
        patch.discountedPrice = discountedPrice
        patch.currency = currency
        patch.stock = stock
        patch.images = images
        return patch
    }
}
