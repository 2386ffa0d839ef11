import Foundation
import GatewayModels
import HTTPInterface
import Routing

/// The v2/v2b two-step deletes. Both steps take the `identifier` header; the first also the
/// vendor's `secret` as JSON `{"secret": …}`. Tokens come from ``DeleteTokens``: single-use,
/// one product each.
///
/// - v2: `POST /api/products/{id}/secret` → 200 `text/plain` `product_secret` (32 hex
///   characters); `DELETE /api/products/{id}/{product_secret}` → 200 and the deleted
///   product's detail, 400 `wrong product secret` for any other token.
/// - v2b: `POST /api/products/{id}/archived` → 200 `text/plain` URI `/api/products/{token}`;
///   `DELETE /api/products/{token}` → 200 and the deleted product's detail, 404 for an
///   unknown (or used) token.
///
/// Errors, in the order they are checked: 400 no `identifier`, 401 unknown identifier, (first
/// step) 400 bad body or wrong `secret`, 404 unknown product, 403 another vendor's product,
/// then the token's own. While ``DeleteTokens/override`` is set, the first step answers it
/// verbatim, after the same checks, instead of a token.
extension DemoRoutes {
    func addV2DeleteRoutes(to router: inout Router, generation: OriginGeneration) {
        if generation == .v2b {
            router.add(.post, "/api/products/{id}/archived", served("/api/products/{id}/archived", plainText(archiveProduct)))
            router.add(.delete, "/api/products/{token}", served("/api/products/{token}", plainText(deleteArchivedProduct)))
        } else {
            router.add(.post, "/api/products/{id}/secret", served("/api/products/{id}/secret", plainText(issueProductSecret)))
            router.add(
                .delete, "/api/products/{id}/{product_secret}",
                served("/api/products/{id}/{product_secret}", plainText(deleteWithProductSecret)))
        }
    }

    /// v2 step one: the `product_secret` as plain text.
    private func issueProductSecret(_ request: GatewayRequest, _ context: RouteContext) throws(V2Failure) -> GatewayResponse {
        let id = try authorizeDeletion(request, context)
        return .plainText(core.deleteTokens.override ?? core.deleteTokens.issue(for: id))
    }

    /// v2 step two.
    private func deleteWithProductSecret(_ request: GatewayRequest, _ context: RouteContext) throws(V2Failure) -> GatewayResponse {
        let vendor = try core.vendors.authenticate(request)
        let id = try productID(context)
        try requireOwned(id, by: vendor)
        guard core.deleteTokens.consume(context.parameters["product_secret"] ?? "", for: id) else { throw .wrongProductSecret }
        return deleted(try catalogue.remove(id: id, vendorID: vendor.id))
    }

    /// v2b step one: the URI to delete, as plain text.
    private func archiveProduct(_ request: GatewayRequest, _ context: RouteContext) throws(V2Failure) -> GatewayResponse {
        let id = try authorizeDeletion(request, context)
        return .plainText(core.deleteTokens.override ?? "/api/products/\(core.deleteTokens.issue(for: id))")
    }

    /// v2b step two.
    private func deleteArchivedProduct(_ request: GatewayRequest, _ context: RouteContext) throws(V2Failure) -> GatewayResponse {
        let vendor = try core.vendors.authenticate(request)
        let token = context.parameters["token"] ?? ""
        guard let id = core.deleteTokens.product(for: token) else { throw .productNotFound }
        try requireOwned(id, by: vendor)
        guard core.deleteTokens.consume(token, for: id) else { throw .productNotFound }
        return deleted(try catalogue.remove(id: id, vendorID: vendor.id))
    }

    /// The checks of a first step; the product id they allow deleting.
    private func authorizeDeletion(_ request: GatewayRequest, _ context: RouteContext) throws(V2Failure) -> Int64 {
        let vendor = try core.vendors.authenticate(request)
        let id = try productID(context)
        try VendorDirectory.check(secret: try V2SecretBody.secret(in: request.body), of: vendor)
        try requireOwned(id, by: vendor)
        return id
    }

    /// - Throws: ``V2Failure/productNotFound``, ``V2Failure/otherVendor``.
    private func requireOwned(_ id: Int64, by vendor: DemoVendor) throws(V2Failure) {
        guard let item = catalogue.item(id: id) else { throw .productNotFound }
        guard item.vendorID == vendor.id else { throw .otherVendor }
    }

    /// The answer to a delete: the product as it was, its other tokens dropped.
    private func deleted(_ item: DemoItem) -> GatewayResponse {
        core.deleteTokens.forget(productID: item.id)
        return .json(productJSON.detail(item))
    }
}
