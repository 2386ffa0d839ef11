import GatewaySupport

/// One product with everything the detail screen shows (`GET /v1/products/{id}`).
///
/// The summary's fields plus `description`, `images` and `imageThumbnails`; JSON key order is
/// the summary's with `description` after `title`, and `images` then `imageThumbnails` after
/// `thumbnails`.
public struct ProductDetail: Sendable, Hashable {
    /// The fields shared with list items.
    public var summary: ProductSummary
    public var description: String
    /// Gateway image URLs, full size.
    public var images: [String]
    /// Aligned with `images`: the gateway URL of each image's own thumbnail where the origin
    /// gives one (v2/v2b `thumbnail_url`), else `nil`. Always as long as `images`.
    public var imageThumbnails: [String?]
    /// Aligned with `images` and `imageThumbnails` when placeholders are asked for; nil
    /// otherwise (the members are left out). The summary carries `thumbnailPlaceholders`.
    public var imagePlaceholders: [ImagePlaceholder?]?
    public var imageThumbnailPlaceholders: [ImagePlaceholder?]?

    /// - Parameter imageThumbnails: padded with `nil` (or cut) to the length of `images`.
    public init(summary: ProductSummary, description: String, images: [String], imageThumbnails: [String?] = []) {
        self.summary = summary
        self.description = description
        self.images = images
        var aligned = Array(imageThumbnails.prefix(images.count))
        aligned.append(contentsOf: repeatElement(nil, count: images.count - aligned.count))
        self.imageThumbnails = aligned
    }
}

extension ProductDetail: ContractJSONEncodable {
    public func write(to writer: inout JSONWriter) {
        summary.write(
            to: &writer,
            detail: ProductSummary.DetailMembers(
                description: description, images: images, imageThumbnails: imageThumbnails, imagePlaceholders: imagePlaceholders,
                imageThumbnailPlaceholders: imageThumbnailPlaceholders))
    }
}
