import GatewayModels
import HTTPInterface

/// The query of a v2/v2b `GET /api/products`: `page_no` and `items_per_page` (both required
/// positive integers, `items_per_page` at most 100) and, on v2b only, an optional
/// `search_value` (v2 ignores it).
struct V2ListQuery: Sendable, Equatable {
    static let maxItemsPerPage = 100

    var pageNo: Int
    var itemsPerPage: Int
    /// Nil when absent or empty, and always on v2.
    var searchValue: String?

    /// `(page_no − 1) × items_per_page`: the first row of the page.
    var offset: Int { (pageNo - 1) * itemsPerPage }
    /// `offset + items_per_page` (as the real server wrote it: the end, not the size).
    var limit: Int { offset + itemsPerPage }

    init(pageNo: Int, itemsPerPage: Int, searchValue: String? = nil) {
        self.pageNo = pageNo
        self.itemsPerPage = itemsPerPage
        self.searchValue = searchValue
    }

    /// Reads the query of `request`.
    /// - Throws: ``V2Failure`` 400 naming the first parameter that is missing or wrong.
    init(request: GatewayRequest, generation: OriginGeneration) throws(V2Failure) {
        guard let pageText = request.queryValue("page_no") else { throw .badRequest("page_no is required") }
        guard let page = PositiveInteger.parse(pageText), page <= Int64(Int32.max) else {
            throw .badRequest("page_no must be a positive integer")
        }
        guard let sizeText = request.queryValue("items_per_page") else { throw .badRequest("items_per_page is required") }
        guard let size = PositiveInteger.parse(sizeText), size <= Self.maxItemsPerPage else {
            throw .badRequest("items_per_page must be an integer from 1 to \(Self.maxItemsPerPage)")
        }
        let search = generation == .v2b ? request.queryValue("search_value") : nil
        self.init(pageNo: Int(page), itemsPerPage: Int(size), searchValue: search?.isEmpty == false ? search : nil)
    }
}
