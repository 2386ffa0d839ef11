import Foundation

/// Builds contract values from ``OriginProduct``s for one request: its locale and its image
/// URL hook.
///
/// A value type; use one per request on any thread. Formatters come from the shared
/// ``DisplayFormatters`` cache.
struct ProductMapper: Sendable {
    let locale: ClientLocale
    let imageURL: ImageURLRewriter

    func summary(_ product: OriginProduct) -> ProductSummary {
        let discount = Discount(price: product.price, salePrice: product.salePrice)
        let money = DisplayFormatters.money(currency: product.currency, locale: locale)
        return ProductSummary(
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
    }

    /// A detail needs the detail-only members; a missing `description` becomes `""` and missing
    /// `images` an empty array (some v1 clients modelled `images` as optional). Image
    /// thumbnails go through the same URL hook as every other image.
    func detail(_ product: OriginProduct) -> ProductDetail {
        ProductDetail(
            summary: summary(product),
            description: product.description ?? "",
            images: (product.images ?? []).map(imageURL),
            imageThumbnails: product.imageThumbnails.map { $0.map(imageURL) }
        )
    }
}
