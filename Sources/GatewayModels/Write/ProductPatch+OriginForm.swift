import Foundation

extension ProductPatch {
    /// The origin's update request body for `generation`, with only the fields the patch sets.
    ///
    /// - v1 (`PATCH /item/{id}`): multipart/form-data like the create form, every field
    ///   optional, `password` always, `images[]` parts only when images are replaced.
    /// - v2/v2b (`PATCH /api/products/{id}`): a JSON object with `secret` and the changed
    ///   fields (`name`, `descriptions`/`description`, `price`, `currency`, `discounted_price` as
    ///   the discount amount, `stock`). These origins take no images on update; sent images are
    ///   dropped.
    ///
    /// - Parameters:
    ///   - secret: the vendor secret for v2/v2b.
    ///   - currentPrice: the product's current list price, needed by v2/v2b to turn a new sale
    ///     price into a discount amount when the patch does not set `price`.
    /// - Throws: ``ValidationFailure`` (field `price`) when v2/v2b need a price and none is known.
    public func originBody(for generation: OriginGeneration, secret: String = "", currentPrice: Decimal? = nil) throws(ValidationFailure) -> OriginRequestBody {
        let fields = OriginFormFields(self)
        switch generation {
        case .v1:
            return OriginRequestBody(multipart: fields.v1Multipart(password: password))
        case .v2, .v2b:
            return OriginRequestBody(json: try fields.v2Params(secret: secret, generation: generation, currentPrice: currentPrice))
        }
    }
}
