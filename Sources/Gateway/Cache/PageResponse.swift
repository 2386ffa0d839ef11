import GatewayModels
import HTTPInterface
import GatewaySupport

/// Turns a cached page into the response for one request: the representation the client
/// accepts (stored gzip or identity), its ETag, 304 when `If-None-Match` names the page,
/// and the caching headers. No JSON work and no compression happen here.
enum PageResponse {
    static let vary = "Accept-Encoding, Accept-Language"

    /// - Parameters:
    ///   - cacheStatus: the `Cache-Status` value, and the outcome the answer carries.
    ///   - maxAge: seconds the app may keep it without asking again.
    ///   - visibility: `public`, or `private` with `--auth-required all`.
    static func render(
        _ page: CachedPage, for request: GatewayRequest, locale: String, cacheStatus: CacheStatusField, maxAge: Int, visibility: String = "public"
    ) -> GatewayResponse {
        let gzip = page.gzip.flatMap { AcceptEncoding.allowsGzip(request.headers["Accept-Encoding"]) ? $0 : nil }
        var headers: HTTPHeaders = [
            "ETag": gzip == nil ? page.etag : page.gzipETag,
            "Cache-Control": "\(visibility), max-age=\(max(0, maxAge))",
            "Vary": vary,
            "Content-Language": locale,
            "Cache-Status": cacheStatus.value,
        ]
        if let ifNoneMatch = request.headers["If-None-Match"], page.matches(ifNoneMatch: ifNoneMatch) {
            return GatewayResponse(status: 304, headers: headers, cacheOutcome: cacheStatus.outcome)
        }
        headers.add("Content-Type", page.contentType)
        if gzip != nil { headers.add("Content-Encoding", "gzip") }
        return GatewayResponse(status: page.status, headers: headers, body: gzip ?? page.identity, cacheOutcome: cacheStatus.outcome)
    }
}
