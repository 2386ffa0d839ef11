import Foundation

/// A v2 or v2b product, as the list's `pages` items or as `GET /api/products/{id}`.
///
/// Keys are snake_case in both generations; v2b list items add `vendorName` and `description`.
/// Prices are `Decimal` whatever the origin's number format (`2000`, `2000.0`, `1.23123123E8`).
/// `bargain_price` is the sale price and `discounted_price` the discount *amount* (0 when none).
/// `created_at` is a zone-less local date-time in the origin's zone (Asia/Seoul).
/// Detail-only members (`images`, `description` in v2) are `nil` on list items.
public struct V2Product: Sendable, Hashable, Decodable {
    public var id: Int64
    public var vendorId: Int64?
    public var vendorName: String?
    public var name: String
    public var description: String?
    public var thumbnail: String
    public var currency: String
    public var price: Decimal
    /// The price the buyer pays (= price − discountedPrice).
    public var bargainPrice: Decimal?
    /// The discount amount; 0 when not discounted.
    public var discountedPrice: Decimal?
    public var stock: Int64
    /// `2022-05-14T00:00:00.00` (v2) or `2022-11-04T00:00:00` (v2b), Asia/Seoul.
    public var createdAt: String
    public var images: [V2ProductImage]?

    enum CodingKeys: String, CodingKey {
        case id, vendorName, name, description, thumbnail, currency, price, stock, images
        case vendorId = "vendor_id"
        case bargainPrice = "bargain_price"
        case discountedPrice = "discounted_price"
        case createdAt = "created_at"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decodeInt64(forKey: .id)
        vendorId = c.contains(.vendorId) ? try c.decodeInt64(forKey: .vendorId) : nil
        vendorName = try c.decodeIfPresent(String.self, forKey: .vendorName)
        name = try c.decode(String.self, forKey: .name)
        description = try c.decodeIfPresent(String.self, forKey: .description)
        thumbnail = try c.decode(String.self, forKey: .thumbnail)
        currency = try c.decode(String.self, forKey: .currency)
        price = try c.decodeDecimal(forKey: .price)
        bargainPrice = try c.decodeDecimalIfPresent(forKey: .bargainPrice)
        discountedPrice = try c.decodeDecimalIfPresent(forKey: .discountedPrice)
        stock = try c.decodeInt64(forKey: .stock)
        createdAt = try c.decode(String.self, forKey: .createdAt)
        images = try c.decodeIfPresent([V2ProductImage].self, forKey: .images)
    }
}
