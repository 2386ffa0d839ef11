/// One product with everything the detail screen shows (`GET /v1/products/{id}`).
///
/// The summary's fields plus `description` and `images`; JSON key order is the summary's with
/// `description` after `title` and `images` after `thumbnails`.
public struct ProductDetail: Sendable, Hashable {
    /// The fields shared with list items.
    public var summary: ProductSummary
    public var description: String
    /// Gateway image URLs, full size.
    public var images: [String]

    public init(summary: ProductSummary, description: String, images: [String]) {
        self.summary = summary
        self.description = description
        self.images = images
    }
}

extension ProductDetail: ContractJSONEncodable {
    public func write(to writer: inout JSONWriter) {
        summary.write(to: &writer, detail: (description, images))
    }
}
