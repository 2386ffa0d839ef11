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
    ///   - current: the product's prices now, as the origin has them: v2/v2b need them to
    ///     write the discount amount when the patch sets only one of the two prices
    ///     (``needsCurrentPrices(for:)``).
    /// - Throws: ``ValidationFailure`` (field `price`) when v2/v2b need a price and none is
    ///   known, (field `discountedPrice`) when the sale price would be above the list price.
    public func originBody(for generation: OriginGeneration, secret: String = "", current: CurrentPrices? = nil) throws(ValidationFailure) -> OriginRequestBody {
        let fields = OriginFormFields(self)
        switch generation {
        case .v1:
            return OriginRequestBody(multipart: fields.v1Multipart(password: password))
        case .v2, .v2b:
            return OriginRequestBody(json: try fields.v2Params(secret: secret, generation: generation, current: current))
        }
    }
}

extension ProductPatch {
    /// Whether the origin's current prices are needed to write this patch for `generation`:
    /// v2/v2b store a discount amount, so changing only the sale price or only the list price
    /// means reading the other from the origin first.
    public func needsCurrentPrices(for generation: OriginGeneration) -> Bool {
        generation != .v1 && (price == nil) != (discountedPrice == nil)
    }
}

/// A product's prices as the origin has them now (contract meanings: `salePrice` is what the
/// buyer pays, nil when not discounted).
public struct CurrentPrices: Sendable, Hashable {
    public var price: Decimal
    public var salePrice: Decimal?

    public init(price: Decimal, salePrice: Decimal?) {
        self.price = price
        self.salePrice = salePrice
    }
}
