import GatewayModels

/// `GET /v1/images/{token}`: the image a signed token names, from the memory tier or
/// fetched once (however many clients ask at once) through the loop's `OriginClient`.
///
/// Runs as a `deferred` handler on the loop that owns the request. A token whose signature
/// does not verify is refused before anything else happens.
public final class ImageReads: Sendable {
    let signer: ImageSigner
    let fetcher: ImageFetcher
    let memory: ImageMemoryCache
    let metrics: GatewayMetrics
    /// `""` (root-relative URLs) or the public base URL without a trailing `/`.
    private let publicBase: String
    private let coalescer = RequestCoalescer<String, ImageFetchOutcome>()

    static let cacheControl = "public, max-age=31536000, immutable"
    static let invalidToken = GatewayError(status: 403, detail: "The image token is not valid.")

    public init(origin: OriginEndpoint, configuration: ImageConfiguration, signer: ImageSigner, metrics: GatewayMetrics) {
        self.signer = signer
        self.metrics = metrics
        fetcher = ImageFetcher(
            policy: ImageHostPolicy(origin: origin, allowedHosts: configuration.allowedHosts), maxBytes: configuration.maxImageBytes,
            maxRedirects: configuration.maxRedirects)
        memory = ImageMemoryCache(budget: configuration.memoryBytes)
        var base = configuration.publicURL ?? ""
        while base.hasSuffix("/") { base.removeLast() }
        publicBase = base
    }

    /// Rewrites an origin image URL into the gateway's signed one; for the product mapping.
    public var imageURL: ImageURLRewriter {
        { [signer, publicBase] url in publicBase + "/v1/images/" + signer.token(for: url) }
    }

    /// Adds `/v1/images/{token}` to `router`.
    public func register(in router: inout Router) {
        router.add(.get, "/v1/images/{token}", .deferred { [self] request, context, responder in
            serve(request, context: context, responder: responder)
        })
    }

    private func serve(_ request: GatewayRequest, context: RouteContext, responder: Responder) {
        guard let url = context.parameters["token"].flatMap(signer.url(from:)) else {
            responder.fail(Self.invalidToken)
            return
        }
        if let image = memory.get(url) {
            metrics.cacheEvent("hit", cache: "image_memory")
            responder.send(Self.answer(image, request, cacheStatus: CacheStatus.hit(detail: "memory")))
            return
        }
        metrics.cacheEvent("miss", cache: "image_memory")
        let joinedLeader = coalescer.join(url) { outcome in
            switch outcome {
            case .image(let image):
                responder.send(Self.answer(image, request, cacheStatus: CacheStatus.stored(fwd: "miss")))
            case .failure(let error):
                responder.fail(error.adding(header: "Cache-Status", CacheStatus.notStored(fwd: "miss", status: nil)))
            }
        }
        guard joinedLeader else { return }
        guard let origin = context.origin else {
            coalescer.finish(url, with: .failure(.serviceUnavailable("No origin is configured.")))
            return
        }
        fetcher.fetch(url, client: origin, requestID: request.requestID) { [self] outcome in
            if case .image(let image) = outcome {
                let evicted = memory.store(image, for: url)
                for _ in 0..<evicted { metrics.cacheEvent("eviction", cache: "image_memory") }
            }
            coalescer.finish(url, with: outcome)
        }
    }

    /// The response for `image`: its own type, immutable caching, its strong ETag, 304 when
    /// `If-None-Match` names it. Never compressed (image types are not compressible).
    static func answer(_ image: CachedPage, _ request: GatewayRequest, cacheStatus: String) -> GatewayResponse {
        let headers: HTTPHeaders = ["ETag": image.etag, "Cache-Control": cacheControl, "Cache-Status": cacheStatus]
        if let ifNoneMatch = request.headers["If-None-Match"], image.matches(ifNoneMatch: ifNoneMatch) {
            return GatewayResponse(status: 304, headers: headers)
        }
        var response = GatewayResponse(status: 200, headers: headers, body: image.identity)
        response.headers.add("Content-Type", image.contentType)
        return response
    }
}
