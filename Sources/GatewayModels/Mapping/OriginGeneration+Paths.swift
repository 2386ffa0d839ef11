extension OriginGeneration {
    /// The origin's path and query for list page `page` (1-based).
    public func listTarget(page: Int) -> String {
        switch self {
        case .v1: "/items/\(page)"
        case .v2, .v2b: "/api/products?page_no=\(page)&items_per_page=\(Self.v1PageSize)"
        }
    }

    /// The origin's path for the detail of product `id`.
    public func detailTarget(id: Int64) -> String {
        switch self {
        case .v1: "/item/\(id)"
        case .v2, .v2b: "/api/products/\(id)"
        }
    }
}
