/// The attribute names the gateway's spans carry: OpenTelemetry's stable HTTP, URL, server,
/// client, network, user-agent, error and database conventions (semantic conventions 1.26
/// and later, where these are stable), and the gateway's own under `open_market.`. The
/// tests check every name here against the stable list.
public enum SemanticConventions {
    public static let httpRequestMethod = "http.request.method"
    /// The method as sent, when it is not one of the known ones (`http.request.method` is
    /// then `_OTHER`).
    public static let httpRequestMethodOriginal = "http.request.method_original"
    public static let httpResponseStatusCode = "http.response.status_code"
    public static let httpRoute = "http.route"
    public static let urlPath = "url.path"
    public static let urlScheme = "url.scheme"
    public static let urlFull = "url.full"
    public static let serverAddress = "server.address"
    public static let serverPort = "server.port"
    public static let clientAddress = "client.address"
    public static let networkProtocolVersion = "network.protocol.version"
    public static let userAgentOriginal = "user_agent.original"
    public static let errorType = "error.type"
    public static let enduserID = "enduser.id"
    public static let dbSystemName = "db.system.name"
    public static let dbOperationName = "db.operation.name"

    /// The cache outcome of a read (`hit`, `stale`, `shared_hit`, `miss`).
    public static let cacheStatus = "open_market.cache.status"
    /// The rate-limit class the request spent (`reads`, `writes`, `images`).
    public static let rateLimitClass = "open_market.rate_limit.class"
    /// The gateway's request id (`X-Request-ID`).
    public static let requestID = "open_market.request_id"
    /// An image render's output format (`webp`, `avif`, `jpeg`, `png`; `placeholder`).
    public static let imageFormat = "open_market.image.format"
    /// An image render's width in pixels (0: the source's).
    public static let imageWidth = "open_market.image.width"
    /// Why the identity provider's key set was loaded: `start`, `refresh`, `unknown kid`.
    public static let keySetLoadReason = "open_market.auth.key_set.reason"
    /// What a background refresh was: `stale_while_revalidate` or `recovery`.
    public static let refreshKind = "open_market.refresh.kind"
    /// What a prefetch fetched ahead: `page`, `detail` or `image`.
    public static let prefetchKind = "open_market.prefetch.kind"
    /// How many placeholders a list answer waited for.
    public static let placeholdersAsked = "open_market.placeholders.asked"
    /// The source image's bytes that a render read.
    public static let imageSourceBytes = "open_market.image.source_bytes"

    /// Resource attributes.
    public static let serviceName = "service.name"
    public static let serviceVersion = "service.version"
    public static let serviceInstanceID = "service.instance.id"
    public static let hostName = "host.name"

    /// Whether `method` is one the conventions know (RFC 9110's and PATCH); any other is
    /// recorded as `_OTHER`.
    public static func isKnownMethod(_ method: String) -> Bool {
        switch method {
        case "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE": true
        default: false
        }
    }
}
