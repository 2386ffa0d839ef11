import Foundation

/// Builds contract values from ``OriginProduct``s for one request: its locale, its image
/// URL hook and, when the request asks for them, its placeholder lookup.
///
/// A value type; use one per request on any thread. Formatters come from the shared
/// ``DisplayFormatters`` cache.
struct ProductMapper: Sendable {
    let locale: ClientLocale
    let imageURL: ImageURLRewriter
    /// Nil: placeholders not asked for.
    var placeholder: ImagePlaceholderLookup? = nil

    func summary(_ product: OriginProduct) -> ProductSummary {
        let discount = Discount(price: product.price, salePrice: product.salePrice)
        let money = DisplayFormatters.money(currency: product.currency, locale: locale)
        var summary = ProductSummary(
            id: product.id,
            title: product.title,
            price: product.price,
            discountedPrice: discount?.salePrice,
            currency: product.currency,
            stock: product.stock,
            isSoldOut: product.stock <= 0,
            thumbnails: product.thumbnails.map(imageURL),
            registeredAt: OriginTimestamp.rfc3339(millis: product.registeredAtMillis),
            vendor: product.vendor,
            display: ProductDisplay(
                price: money.string(product.price),
                discountedPrice: discount.map { money.string($0.salePrice) },
                discountRate: discount?.rateText,
                stock: StockLabel.text(stock: product.stock, locale: locale)
            )
        )
        if let placeholder { summary.thumbnailPlaceholders = product.thumbnails.enumerated().map { placeholder($1, $0) } }
        return summary
    }

    /// A detail needs the detail-only members; a missing `description` becomes `""` and missing
    /// `images` an empty array (some v1 clients modelled `images` as optional). Image
    /// thumbnails go through the same URL hook as every other image.
    func detail(_ product: OriginProduct) -> ProductDetail {
        var detail = ProductDetail(
            summary: summary(product),
            description: product.description ?? "",
            images: (product.images ?? []).map(imageURL),
            imageThumbnails: product.imageThumbnails.map { $0.map(imageURL) }
        )
        if let placeholder {
            detail.imagePlaceholders = (product.images ?? []).enumerated().map { placeholder($1, $0) }
            // Aligned with `imageThumbnails` as the detail pads or cuts it.
            let thumbnails = Array(product.imageThumbnails.prefix(detail.images.count))
                + Array(repeating: nil, count: max(0, detail.images.count - product.imageThumbnails.count))
            detail.imageThumbnailPlaceholders = thumbnails.enumerated().map { position, url in url.flatMap { placeholder($0, position) } }
        }
        return detail
    }
}
