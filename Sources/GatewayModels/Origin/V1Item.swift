import Foundation

/// A v1 item (`camp-open-market(-2).herokuapp.com`), as `GET /items/{page}` lists it and
/// `GET /item/{id}` returns it. snake_case keys, any order.
///
/// List items have no `descriptions` or `images`; details have both. `discounted_price` is
/// absent when the item is not discounted and, when present, is the sale price.
/// `registration_date` is Unix epoch seconds with a fraction, kept exactly as a `Decimal`.
public struct V1Item: Sendable, Hashable, Decodable {
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

    enum CodingKeys: String, CodingKey {
        case id, title, descriptions, price, currency, stock, thumbnails, images
        case discountedPrice = "discounted_price"
        case registrationDate = "registration_date"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decodeInt64(forKey: .id)
        title = try c.decode(String.self, forKey: .title)
        descriptions = try c.decodeIfPresent(String.self, forKey: .descriptions)
        price = try c.decodeDecimal(forKey: .price)
        currency = try c.decode(String.self, forKey: .currency)
        stock = try c.decodeInt64(forKey: .stock)
        discountedPrice = try c.decodeDecimalIfPresent(forKey: .discountedPrice)
        thumbnails = try c.decodeIfPresent([String].self, forKey: .thumbnails) ?? []
        images = try c.decodeIfPresent([String].self, forKey: .images)
        registrationDate = try c.decodeDecimal(forKey: .registrationDate)
    }
}
