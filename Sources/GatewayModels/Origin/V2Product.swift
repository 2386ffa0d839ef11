import Foundation
import GatewaySupport

/// A v2 or v2b product, as the list's `pages` items or as `GET /api/products/{id}`.
///
/// Keys are snake_case in both generations; v2b list items add `vendorName` and `description`.
/// Prices are `Decimal` whatever the origin's number format (`2000`, `2000.0`, `1.23123123E8`).
/// `bargain_price` is the sale price and `discounted_price` the discount *amount* (0 when none).
/// `created_at` is a zone-less local date-time in the origin's zone (Asia/Seoul).
/// Detail-only members (`images`, `vendors`, `description` in v2) are `nil` on list items.
public struct V2Product: Sendable, Hashable, JSONShapeDecodable {
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
    /// The detail's `vendors` object.
    public var vendors: V2Vendor?

    public init(reading c: JSONObjectReader) throws(JSONShapeError) {
        id = try c.int64("id")
        vendorId = try c.int64IfPresent("vendor_id")
        vendorName = try c.stringIfPresent("vendorName")
        name = try c.string("name")
        description = try c.stringIfPresent("description")
        thumbnail = try c.string("thumbnail")
        currency = try c.string("currency")
        price = try c.decimal("price")
        bargainPrice = try c.decimalIfPresent("bargain_price")
        discountedPrice = try c.decimalIfPresent("discounted_price")
        stock = try c.int64("stock")
        createdAt = try c.string("created_at")
        images = try c.objectsIfPresent("images", V2ProductImage.init(reading:))
        vendors = try c.objectIfPresent("vendors", V2Vendor.init(reading:))
    }
}
