import Crypto
import Foundation
import GatewayModels
import HTTPInterface
import Observability
import Routing
import GatewaySupport

/// The admin listener's routes (`--admin-port`): `POST /admin/purge`, `GET /admin/cache`,
/// and `GET /metrics` with `--metrics-on-admin`. Every one needs `Authorization: Bearer
/// <token>`; a wrong or missing token gets 401 problem+json with `WWW-Authenticate` and
/// changes nothing. The public port has none of these routes (404).
public enum AdminRoutes {
    /// The routes, checking `token` (compared as SHA-256 digests, in constant time).
    public static func router(token: String, routes: GatewayApplication.OriginRoutes, metrics: GatewayMetrics, servesMetrics: Bool) -> Router {
        let guarded = Guard(expected: Array(SHA256.hash(data: Array(token.utf8))))
        var router = Router()
        let purger = routes.purger
        router.add(.post, "/admin/purge", guarded.wrap(.deferred { request, context, responder in
            switch PurgeScope.decode(request.body) {
            case .failure(let invalid):
                responder.fail(GatewayError.invalidFields(invalid.errors))
            case .success(let scope):
                purger.purge(scope, redis: context.redis) { dropped, shared in
                    responder.send(.json(purgeAnswer(dropped, shared)))
                    context.logger.notice(
                        "cache purged",
                        metadata: ["scope": .string(describe(scope)), "pages": .stringConvertible(dropped.pages),
                            "images": .stringConvertible(dropped.images), "shared": .string(shared.rawValue)])
                }
            }
        }))
        router.add(.get, "/admin/cache", guarded.wrap(.immediate { _, _ in
            var response = GatewayResponse.json(cacheFigures(routes, metrics: metrics))
            response.headers.set("Cache-Control", "no-store")
            return response
        }))
        if servesMetrics { router.add(.get, "/metrics", guarded.wrap(GatewayApplication.metricsRoute(metrics))) }
        return router
    }

    /// Runs a route only for requests that carry the token.
    struct Guard: Sendable {
        /// The SHA-256 of the token.
        let expected: [UInt8]

        /// Compares digests (so the token's length shows in no timing) with every byte
        /// looked at whatever differs (constant time).
        func authorized(_ request: GatewayRequest) -> Bool {
            guard let value = request.headers["Authorization"], value.count > 7, value.prefix(7).lowercased() == "bearer " else { return false }
            return ConstantTime.equals(Array(SHA256.hash(data: Array(value.dropFirst(7).utf8))), expected)
        }

        func wrap(_ handler: RouteHandler) -> RouteHandler {
            .deferred { request, context, responder in
                guard authorized(request) else { return responder.fail(AdminRoutes.unauthorized) }
                handler.run(request, context: context, responder: responder)
            }
        }
    }

    static let unauthorized = GatewayError(
        status: 401, type: GatewayError.typePrefix + "unauthorized", title: "Unauthorized",
        detail: "The admin API needs Authorization: Bearer with the admin token.",
        headers: ["WWW-Authenticate": #"Bearer realm="open-market-gateway-admin""#])

    /// `{"dropped":{"pages":3,"images":0},"shared":"purged"}`.
    static func purgeAnswer(_ dropped: CachePurger.Dropped, _ shared: CachePurger.SharedOutcome) -> [UInt8] {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        writer.key("dropped")
        writer.beginObject()
        writer.key("pages"); writer.integer(Int64(dropped.pages))
        writer.key("images"); writer.integer(Int64(dropped.images))
        writer.endObject()
        writer.key("shared"); writer.string(shared.rawValue)
        writer.endObject()
        return writer.bytes
    }

    static func describe(_ scope: PurgeScope) -> String {
        switch scope {
        case .products(let ids): "products " + ids.map(String.init).joined(separator: ",")
        case .pages: "pages"
        case .all: "all"
        }
    }

    /// Entries, bytes and hit ratio of every tier of this process (the shared tier's
    /// entries and bytes are Redis's to tell: null).
    static func cacheFigures(_ routes: GatewayApplication.OriginRoutes, metrics: GatewayMetrics) -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        func tier(_ name: String, entries: Int?, bytes: Int?, cache: String, hits: [String], misses: [String]) {
            let hitCount = hits.reduce(0) { $0 + metrics.cacheEventCount($1, cache: cache) }
            let missCount = misses.reduce(0) { $0 + metrics.cacheEventCount($1, cache: cache) }
            writer.key(name)
            writer.beginObject()
            writer.key("entries"); if let entries { writer.integer(Int64(entries)) } else { writer.null() }
            writer.key("bytes"); if let bytes { writer.integer(Int64(bytes)) } else { writer.null() }
            writer.key("hits"); writer.integer(Int64(hitCount))
            writer.key("misses"); writer.integer(Int64(missCount))
            writer.key("hitRatio")
            if hitCount + missCount == 0 {
                writer.null()
            } else {
                writer.decimal(Decimal(string: String(format: "%.4f", Double(hitCount) / Double(hitCount + missCount)))!)
            }
            writer.endObject()
        }
        writer.beginObject()
        let pages = routes.reads.cache
        tier("pages", entries: pages.count, bytes: pages.bytes, cache: "page", hits: ["hit", "stale", "stale_if_error"], misses: ["miss", "expired", "revalidate_after_gap"])
        if routes.reads.shared != nil {
            tier("sharedPages", entries: nil, bytes: nil, cache: SharedPages.metricName, hits: ["hit", "hit_after_wait"], misses: ["miss", "stale", "error"])
        }
        let images = routes.images
        tier("imageMemory", entries: images.memory.count, bytes: images.memory.bytes, cache: "image_memory", hits: ["hit"], misses: ["miss"])
        if let disk = images.disk {
            tier("imageDisk", entries: disk.count, bytes: disk.bytes, cache: "image_disk", hits: ["hit"], misses: ["miss"])
        }
        writer.endObject()
        return writer.bytes
    }
}
