import GatewayModels
import GatewaySupport

/// How many requests the demo origin received, by route and by exact path. Requests to
/// `/__admin/` are not counted; faulted requests are (they reached the origin).
public struct RequestCounts: Sendable, Equatable {
    /// Every counted request.
    public var total: Int
    /// By method and route pattern: `"GET /items/{page}"`. Requests no route takes count
    /// under `"GET (unmatched)"`.
    public var routes: [String: Int]
    /// By method and path as sent, still percent-encoded, without the query: `"GET /items/1"`.
    public var paths: [String: Int]
    /// Counted requests that carried an `Authorization` header (a gateway should never
    /// pass a client's on).
    public var authorized = 0

    public init(total: Int = 0, routes: [String: Int] = [:], paths: [String: Int] = [:]) {
        self.total = total
        self.routes = routes
        self.paths = paths
    }

    /// Requests with this method and exact path (`count("GET", "/item/7")`).
    public func count(_ method: String, _ path: String) -> Int {
        paths["\(method) \(path)"] ?? 0
    }

    /// Requests with this method on this route pattern (`route("GET", "/item/{id}")`).
    public func route(_ method: String, _ pattern: String) -> Int {
        routes["\(method) \(pattern)"] ?? 0
    }

    /// `{"total":3,"authorized":0,"routes":{…},"paths":{…}}`, keys sorted.
    public var json: [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.key("total"); writer.integer(Int64(total))
        writer.key("authorized"); writer.integer(Int64(authorized))
        for (name, table) in [("routes", routes), ("paths", paths)] {
            writer.key(name)
            writer.beginObject()
            for key in table.keys.sorted() {
                writer.key(key); writer.integer(Int64(table[key]!))
            }
            writer.endObject()
        }
        writer.endObject()
        return writer.bytes
    }
}
