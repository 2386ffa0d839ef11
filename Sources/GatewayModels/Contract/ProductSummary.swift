import Foundation
import GatewaySupport

/// One product as the client contract lists it (`GET /v1/products` items).
///
/// Every origin generation maps to this one shape (see ``OriginGeneration``). JSON keys are
/// written by ``write(to:)`` in this fixed order: `id, title, price, discountedPrice, currency,
/// stock, isSoldOut, thumbnails, registeredAt, vendor, display`; with placeholders asked for
/// (`include=placeholders`), `thumbnailPlaceholders` follows `thumbnails`.
public struct ProductSummary: Sendable, Hashable {
    public var id: Int64
    public var title: String
    /// The list price in major units, exactly as the origin gave it (`16.9`, `123123123`).
    public var price: Decimal
    /// What the buyer pays when discounted; `nil` when not discounted.
    public var discountedPrice: Decimal?
    /// ISO 4217 code (origin codes outside the table are passed through unchanged).
    public var currency: String
    /// Units in stock; 64-bit because the origin holds 10^12.
    public var stock: Int64
    /// `stock <= 0`.
    public var isSoldOut: Bool
    /// Gateway image URLs (the mapping's image hook has rewritten them).
    public var thumbnails: [String]
    /// Aligned with `thumbnails` when placeholders are asked for (each one's size and
    /// ThumbHash, or nil while unknown); nil otherwise (the member is left out).
    public var thumbnailPlaceholders: [ImagePlaceholder?]?
    /// RFC 3339, UTC, whole seconds: `2021-01-24T21:26:03Z`.
    public var registeredAt: String
    /// Who sells it, when the origin says (v2/v2b); `nil` (JSON `null`) on v1.
    public var vendor: ProductVendor?
    public var display: ProductDisplay

    public init(
        id: Int64, title: String, price: Decimal, discountedPrice: Decimal?, currency: String,
        stock: Int64, isSoldOut: Bool, thumbnails: [String], registeredAt: String, vendor: ProductVendor? = nil,
        display: ProductDisplay
    ) {
        self.id = id
        self.title = title
        self.price = price
        self.discountedPrice = discountedPrice
        self.currency = currency
        self.stock = stock
        self.isSoldOut = isSoldOut
        self.thumbnails = thumbnails
        self.registeredAt = registeredAt
        self.vendor = vendor
        self.display = display
    }

    /// What a detail adds to the summary's members.
    struct DetailMembers {
        var description: String
        var images: [String]
        var imageThumbnails: [String?]
        var imagePlaceholders: [ImagePlaceholder?]?
        var imageThumbnailPlaceholders: [ImagePlaceholder?]?
    }

    /// Writes the product as a JSON object; with `detail`, `description` follows `title`, and
    /// `images` then `imageThumbnails` follow `thumbnails` (each followed by its placeholders
    /// when they are asked for).
    func write(to writer: inout JSONWriter, detail: DetailMembers? = nil) {
        writer.beginObject()
        writer.key("id"); writer.integer(id)
        writer.key("title"); writer.string(title)
        if let detail { writer.key("description"); writer.string(detail.description) }
        writer.key("price"); writer.decimal(price)
        writer.key("discountedPrice"); writer.decimal(discountedPrice)
        writer.key("currency"); writer.string(currency)
        writer.key("stock"); writer.integer(stock)
        writer.key("isSoldOut"); writer.bool(isSoldOut)
        writer.key("thumbnails"); writer.strings(thumbnails)
        if let thumbnailPlaceholders {
            writer.key("thumbnailPlaceholders"); ImagePlaceholder.write(thumbnailPlaceholders, to: &writer)
        }
        if let detail {
            writer.key("images"); writer.strings(detail.images)
            if let placeholders = detail.imagePlaceholders {
                writer.key("imagePlaceholders"); ImagePlaceholder.write(placeholders, to: &writer)
            }
            writer.key("imageThumbnails")
            writer.beginArray()
            for thumbnail in detail.imageThumbnails { writer.string(thumbnail) }
            writer.endArray()
            if let placeholders = detail.imageThumbnailPlaceholders {
                writer.key("imageThumbnailPlaceholders"); ImagePlaceholder.write(placeholders, to: &writer)
            }
        }
        writer.key("registeredAt"); writer.string(registeredAt)
        writer.key("vendor")
        if let vendor { vendor.write(to: &writer) } else { writer.null() }
        writer.key("display"); display.write(to: &writer)
        writer.endObject()
    }
}

extension ProductSummary: ContractJSONEncodable {
    public func write(to writer: inout JSONWriter) {
        write(to: &writer, detail: nil)
    }
}
