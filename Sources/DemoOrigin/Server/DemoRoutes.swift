import Foundation
import GatewayModels
import HTTPInterface
import Routing
import GatewaySupport

/// The demo origin's route table: the configured generation's API (v1, or v2/v2b in
/// `DemoRoutes+V2.swift`), the image objects, and `/__admin/`. The other generations' paths
/// are not routed: they are 404 like any unknown path.
///
/// Every route outside `/__admin/` (and every request no route takes) goes through
/// ``served(_:_:)``: it is counted, then the fault settings decide its fate. The handlers
/// themselves are quick (a lock, a copy, a small JSON write) and run on the loop unless
/// latency is set; then the answer is computed after a `Task.sleep`, off the loop.
struct DemoRoutes: Sendable {
    let core: DemoOriginCore
    var catalogue: Catalogue { core.catalogue }
    var address: BaseAddress { core.address }

    typealias Handler = @Sendable (GatewayRequest, RouteContext) throws(V1Failure) -> GatewayResponse
    typealias V2Handler = @Sendable (GatewayRequest, RouteContext) throws(V2Failure) -> GatewayResponse

    func router() -> Router {
        var router = Router()
        let generation = core.configuration.generation
        switch generation {
        case .v1: addV1Routes(to: &router)
        case .v2, .v2b: addV2Routes(to: &router, generation: generation)
        }
        let notFound = generation == .v1 ? V1Failure.notFound.response : V2Failure.notFound.response
        for size in [ImageStore.Size.image, .thumbnail] {
            let pattern = "/\(size.rawValue)/{file}"
            router.add(.get, pattern, served(pattern) { [core] request, context in
                core.images.response(
                    size: size, file: context.parameters["file"] ?? "", request: request, catalogue: core.catalogue, notFound: notFound)
            })
        }
        addAdminRoutes(to: &router)
        router.unmatched = served("(unmatched)") { _, _ in notFound }
        // Vapor ignored empty path components, and some v1 clients sent `POST /item/`: a
        // trailing slash is dropped and the request routed again (and counted as routed).
        // (Spring MVC before 6, behind v2/v2b, matched a trailing slash as well.)
        var outer = router
        let inner = router
        outer.unmatched = .deferred { request, context, responder in
            var retried = request
            if request.path.count > 1, request.path.hasSuffix("/") { retried.path.removeLast() }
            inner.dispatch(retried, logger: context.logger, responder: responder)
        }
        return outer
    }

    /// `handler` behind the request counter and the fault switches. Injected errors are the
    /// generation's own (``V1Failure/injected`` JSON, or ``V2Failure/injected`` text).
    func served(_ pattern: String, _ handler: @escaping Handler) -> RouteHandler {
        let injected = core.configuration.generation == .v1 ? V1Failure.injected.response : V2Failure.injected.response
        return .deferred { [core] request, context, responder in
            core.counter.record(
                route: "\(request.method.rawValue) \(pattern)", path: "\(request.method.rawValue) \(request.path)",
                authorized: request.headers["Authorization"] != nil)
            let (settings, fate) = core.faults.plan()
            let answer: @Sendable () -> GatewayResponse = {
                switch fate {
                case .drop: return .droppedConnection
                case .error: return injected
                case .answer, .lostAnswer:
                    let response: GatewayResponse
                    do throws(V1Failure) {
                        response = try handler(request, context)
                    } catch {
                        response = error.response
                    }
                    return fate == .lostAnswer ? .droppedConnection : response
                }
            }
            guard settings.latencyMs > 0, !settings.down else {
                responder.send(answer())
                return
            }
            Task {
                try? await Task.sleep(for: .milliseconds(settings.latencyMs))
                responder.send(answer())
            }
        }
    }

    /// A v2/v2b handler as a ``Handler``: its ``V2Failure`` becomes its plain-text answer.
    func plainText(_ handler: @escaping V2Handler) -> Handler {
        { request, context throws(V1Failure) in
            do throws(V2Failure) {
                return try handler(request, context)
            } catch {
                return error.response
            }
        }
    }

    // MARK: - v1 API

    private func addV1Routes(to router: inout Router) {
        router.add(.get, "/items/{page}", served("/items/{page}", listItems))
        router.add(.get, "/item/{id}", served("/item/{id}", getItem))
        router.add(.post, "/item", served("/item", createItem))
        router.add(.patch, "/item/{id}", served("/item/{id}", updateItem))
        router.add(.delete, "/item/{id}", served("/item/{id}", deleteItem))
    }

    private func listItems(_ request: GatewayRequest, _ context: RouteContext) throws(V1Failure) -> GatewayResponse {
        guard let page = context.parameters["page"].flatMap(PositiveInteger.parse) else {
            throw .badRequest("The page must be a positive integer.")
        }
        let items = catalogue.page(Int(page))
        return .v1JSON(ItemJSON.page(Int(page), items: items, baseURL: address.value))
    }

    private func getItem(_ request: GatewayRequest, _ context: RouteContext) throws(V1Failure) -> GatewayResponse {
        guard let id = itemID(context), let item = catalogue.item(id: id) else { throw .notFound }
        return .v1JSON(ItemJSON.detail(item, baseURL: address.value))
    }

    private func createItem(_ request: GatewayRequest, _ context: RouteContext) throws(V1Failure) -> GatewayResponse {
        let form = try ItemForm(request: request)
        try form.requireComplete()
        return .v1JSON(ItemJSON.detail(catalogue.create(form), baseURL: address.value))
    }

    private func updateItem(_ request: GatewayRequest, _ context: RouteContext) throws(V1Failure) -> GatewayResponse {
        guard let id = itemID(context), catalogue.item(id: id) != nil else { throw .notFound }
        let form = try ItemForm(request: request)
        guard form.password != nil else { throw .badRequest("Value required for key 'password'.") }
        return .v1JSON(ItemJSON.detail(try catalogue.update(id: id, with: form), baseURL: address.value))
    }

    /// v1b: `{"password": "…"}` as JSON; answers the deleted item.
    private func deleteItem(_ request: GatewayRequest, _ context: RouteContext) throws(V1Failure) -> GatewayResponse {
        guard let id = itemID(context), catalogue.item(id: id) != nil else { throw .notFound }
        if let contentType = request.headers["Content-Type"], HeaderParameters(parsing: contentType).value != "application/json" {
            throw .unsupportedMediaType("application/json")
        }
        guard let body = JSONValue.parse(request.body), case .object(let members) = body else {
            throw .badRequest("The body must be a JSON object with a password.")
        }
        guard case .string(let password)? = members["password"], !password.isEmpty else {
            throw .badRequest("Value required for key 'password'.")
        }
        return .v1JSON(ItemJSON.detail(try catalogue.delete(id: id, password: password), baseURL: address.value))
    }

    private func itemID(_ context: RouteContext) -> Int64? {
        context.parameters["id"].flatMap(PositiveInteger.parse)
    }
}
