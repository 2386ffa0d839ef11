import Foundation
import GatewayModels
import HTTPInterface
import Routing

/// The v2 (`market-training.yagom-academy.kr`, 2022) and v2b (`openmarket.yagom-academy.kr`,
/// late 2022 on) API, as `shared/docs/upstream-api.md` §3 and §4 describe it:
///
/// - `GET /healthChecker` → 200 `"OK"` (a JSON string: 4 bytes with the quotes).
/// - `GET /api/products?page_no=&items_per_page=` (v2b: and `search_value`) → a list page,
///   newest first (``V2ListQuery``, ``V2ProductJSON``).
/// - `GET /api/products/{id}` → the detail.
/// - `POST /api/products` (header `identifier`, multipart ``V2ProductForm``) → 201 and the
///   new product's detail.
/// - `PATCH /api/products/{id}` (header `identifier`, JSON ``V2ProductParams``) → 200 and the
///   detail.
/// - The two-step delete (`DemoRoutes+V2Delete.swift`): v2 `/secret` then
///   `DELETE /api/products/{id}/{product_secret}`; v2b `/archived` then
///   `DELETE /api/products/{token}`.
///
/// Writes authenticate with the `identifier` header (``VendorDirectory``) and the vendor's
/// `secret`; only the owning vendor may change a product. Every error is plain text
/// (``V2Failure``).
extension DemoRoutes {
    func addV2Routes(to router: inout Router, generation: OriginGeneration) {
        router.add(.get, "/healthChecker", served("/healthChecker") { _, _ in .json(Array(#""OK""#.utf8)) })
        router.add(.get, "/api/products", served("/api/products", plainText(listProducts)))
        router.add(.get, "/api/products/{id}", served("/api/products/{id}", plainText(getProduct)))
        router.add(.post, "/api/products", served("/api/products", plainText(createProduct)))
        router.add(.patch, "/api/products/{id}", served("/api/products/{id}", plainText(updateProduct)))
        addV2DeleteRoutes(to: &router, generation: generation)
    }

    var generation: OriginGeneration { core.configuration.generation }

    /// The body writer of this generation, on the origin's base URL now.
    var productJSON: V2ProductJSON {
        V2ProductJSON(generation: generation, baseURL: address.value, vendors: core.vendors)
    }

    /// The `{id}` path parameter, or ``V2Failure/productNotFound`` when it is not a
    /// positive integer.
    func productID(_ context: RouteContext) throws(V2Failure) -> Int64 {
        guard let id = context.parameters["id"].flatMap(PositiveInteger.parse) else { throw .productNotFound }
        return id
    }

    private func listProducts(_ request: GatewayRequest, _ context: RouteContext) throws(V2Failure) -> GatewayResponse {
        let query = try V2ListQuery(request: request, generation: generation)
        let matched = catalogue.newestFirst(matching: query.searchValue)
        let quirk = core.configuration.pagingQuirk && generation == .v2b
        return .json(productJSON.page(query, matched: matched, quirk: quirk))
    }

    private func getProduct(_ request: GatewayRequest, _ context: RouteContext) throws(V2Failure) -> GatewayResponse {
        guard let item = catalogue.item(id: try productID(context)) else { throw .productNotFound }
        return .json(productJSON.detail(item))
    }

    private func createProduct(_ request: GatewayRequest, _ context: RouteContext) throws(V2Failure) -> GatewayResponse {
        let vendor = try core.vendors.authenticate(request)
        let form = try V2ProductForm(request: request, generation: generation)
        try VendorDirectory.check(secret: form.params.secret, of: vendor)
        try form.params.requireComplete(generation: generation)
        let item = catalogue.create(form.params, images: form.images, vendorID: vendor.id)
        return .json(productJSON.detail(item), status: 201)
    }

    private func updateProduct(_ request: GatewayRequest, _ context: RouteContext) throws(V2Failure) -> GatewayResponse {
        let vendor = try core.vendors.authenticate(request)
        let id = try productID(context)
        if let contentType = request.headers["Content-Type"], HeaderParameters(parsing: contentType).value != "application/json" {
            throw .badRequest("body must be application/json")
        }
        let params = try V2ProductParams(json: request.body, generation: generation)
        try VendorDirectory.check(secret: params.secret, of: vendor)
        return .json(productJSON.detail(try catalogue.update(id: id, vendorID: vendor.id, with: params)))
    }
}
