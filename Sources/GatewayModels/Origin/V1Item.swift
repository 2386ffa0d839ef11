import Foundation
import GatewaySupport

/// A v1 item (`camp-open-market(-2).herokuapp.com`), as `GET /items/{page}` lists it and
/// `GET /item/{id}` returns it. snake_case keys, any order.
///
/// List items have no `descriptions` or `images`; details have both. `discounted_price` is
/// absent when the item is not discounted and, when present, is the sale price.
/// `registration_date` is Unix epoch seconds with a fraction, kept exactly as a `Decimal`.
public struct V1Item: Sendable, Hashable, JSONShapeDecodable {
    public var id: Int64
    public var title: String
    public var descriptions: String?
    public var price: Decimal
    public var currency: String
    public var stock: Int64
    /// The sale price, when discounted.
    public var discountedPrice: Decimal?
    public var thumbnails: [String]
    public var images: [String]?
    /// Epoch seconds, e.g. `1611523563.7237701`.
    public var registrationDate: Decimal

    public init(reading c: JSONObjectReader) throws(JSONShapeError) {
        id = try c.int64("id")
        title = try c.string("title")
        descriptions = try c.stringIfPresent("descriptions")
        price = try c.decimal("price")
        currency = try c.string("currency")
        stock = try c.int64("stock")
        discountedPrice = try c.decimalIfPresent("discounted_price")
        thumbnails = try c.stringsIfPresent("thumbnails") ?? []
        images = try c.stringsIfPresent("images")
        registrationDate = try c.decimal("registration_date")
    }
}
