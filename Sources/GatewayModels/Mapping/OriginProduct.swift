import Foundation

/// One product with every generation's differences already settled: the meeting point of the
/// v1 and v2/v2b shapes before the contract is built.
///
/// - `salePrice` already follows the generation's rule (v1: `discounted_price`; v2/v2b:
///   `bargain_price` when `discounted_price` > 0). Whether it is a real discount is decided
///   later by ``Discount``.
/// - `registeredAtMillis` is UTC.
struct OriginProduct: Sendable {
    var id: Int64
    var title: String
    var description: String?
    var price: Decimal
    var salePrice: Decimal?
    var currency: String
    var stock: Int64
    var thumbnails: [String]
    var images: [String]?
    /// Aligned with `images`: each image's own thumbnail where the origin names one.
    var imageThumbnails: [String?] = []
    var registeredAtMillis: Int64
    /// v2/v2b only.
    var vendor: ProductVendor?

    init(v1 item: V1Item) throws(OriginResponseError) {
        guard let millis = OriginTimestamp.millis(epochSeconds: item.registrationDate) else {
            throw OriginResponseError(generation: .v1, reason: "registration_date out of range in item \(item.id)")
        }
        id = item.id
        title = item.title
        description = item.descriptions
        price = item.price
        salePrice = item.discountedPrice
        currency = item.currency
        stock = item.stock
        thumbnails = item.thumbnails
        images = item.images
        registeredAtMillis = millis
    }

    init(v2 product: V2Product, generation: OriginGeneration, timeZone: TimeZone) throws(OriginResponseError) {
        guard let millis = OriginTimestamp.millis(localDateTime: product.createdAt, timeZone: timeZone) else {
            throw OriginResponseError(generation: generation, reason: "unreadable created_at \"\(product.createdAt)\" in product \(product.id)")
        }
        id = product.id
        title = product.name
        description = product.description
        price = product.price
        if let amount = product.discountedPrice, amount > 0 {
            // bargain_price is the sale price; an origin that omits it still gave the amount.
            salePrice = product.bargainPrice ?? product.price - amount
        } else {
            salePrice = nil
        }
        currency = product.currency
        stock = product.stock
        thumbnails = [product.thumbnail]
        images = product.images.map { $0.map(\.url) }
        imageThumbnails = product.images.map { $0.map(\.thumbnailURL) } ?? []
        registeredAtMillis = millis
        // The detail's `vendors` object wins over the item keys; the name may be unknown.
        if let id = product.vendors?.id ?? product.vendorId {
            vendor = ProductVendor(id: id, name: product.vendors?.name ?? product.vendorName)
        }
    }
}
