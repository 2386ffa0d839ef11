import Foundation
import GatewayModels

/// One item of the demo catalogue, with everything the v1 origin kept about it, and the
/// vendor that owns it on the v2/v2b origins.
public struct DemoItem: Sendable, Hashable {
    public var id: Int64
    public var title: String
    public var descriptions: String
    /// The list price, exact (the v1 samples have integers; writes may send fractions).
    public var price: Decimal
    /// ISO 4217 code as sent (`KRW`, `USD`, `JPY`, `BHD`).
    public var currency: String
    public var stock: Int64
    /// The sale price when discounted; nil writes no `discounted_price` key.
    public var discountedPrice: Decimal?
    /// Unix epoch seconds with a fraction, exactly as written out (`1611523563.7237701`).
    public var registrationDate: Decimal
    /// The password PATCH and DELETE must repeat.
    public var password: String
    /// One to five images, in order; image `n` is served as `{id}-{n}.{png|jpg}`.
    public var images: [DemoImage]
    /// The ``DemoVendor/id`` of the vendor that owns it (v2/v2b `vendor_id`; v1 ignores it).
    public var vendorID: Int64

    public init(
        id: Int64, title: String, descriptions: String, price: Decimal, currency: String, stock: Int64,
        discountedPrice: Decimal? = nil, registrationDate: Decimal, password: String, images: [DemoImage], vendorID: Int64 = 1
    ) {
        self.id = id
        self.title = title
        self.descriptions = descriptions
        self.price = price
        self.currency = currency
        self.stock = stock
        self.discountedPrice = discountedPrice
        self.registrationDate = registrationDate
        self.password = password
        self.images = images
        self.vendorID = vendorID
    }

    /// The object-store file names of its images (`7-1.png`, `7-2.jpg`).
    public var imageFileNames: [String] {
        images.enumerated().map { index, image in "\(id)-\(index + 1).\(image.kind.fileExtension)" }
    }
}

extension DemoItem {
    /// v2/v2b `bargain_price`: the sale price, or the price when not discounted.
    var bargainPrice: Decimal { discountedPrice ?? price }

    /// v2/v2b `discounted_price`: the amount taken off the price, 0 when not discounted.
    var discountAmount: Decimal { price - bargainPrice }
}
