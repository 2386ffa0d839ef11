import GatewayModels

/// `GET /v1/images/{token}`: the image a signed token names, from the memory tier, else the
/// disk tier, else fetched once (however many clients ask at once) through the loop's
/// `OriginClient`.
///
/// Runs as a `deferred` handler on the loop that owns the request. A token whose signature
/// does not verify is refused before anything else happens. A memory miss joins the one
/// lookup for its URL: the leader reads the disk tier on its queue (never on a loop), and on
/// a disk miss hops back to its loop to fetch; every waiter's responder writes on its own
/// loop.
public final class ImageReads: Sendable {
    /// What one lookup produced, and the `Cache-Status` to answer it with.
    struct Served: Sendable {
        let outcome: ImageFetchOutcome
        let cacheStatus: String
    }

    let signer: ImageSigner
    let fetcher: ImageFetcher
    let memory: ImageMemoryCache
    /// Nil when `diskBytes` is 0.
    let disk: ImageDiskCache?
    let metrics: GatewayMetrics
    /// `""` (root-relative URLs) or the public base URL without a trailing `/`.
    private let publicBase: String
    private let coalescer = RequestCoalescer<String, Served>()
    /// Tokens already verified, for memory-tier hits answered as stored bytes.
    private let verified = VerifiedTokens()

    static let cacheControl = "public, max-age=31536000, immutable"
    static let invalidToken = GatewayError(status: 403, detail: "The image token is not valid.")

    /// - Throws: when the disk tier's directory (`images/` under the cache directory) cannot
    ///   be created. Its index is rebuilt here, before any loop serves.
    public init(origin: OriginEndpoint, configuration: ImageConfiguration, signer: ImageSigner, metrics: GatewayMetrics) throws {
        self.signer = signer
        self.metrics = metrics
        fetcher = ImageFetcher(
            policy: ImageHostPolicy(origin: origin, allowedHosts: configuration.allowedHosts), maxBytes: configuration.maxImageBytes,
            maxRedirects: configuration.maxRedirects, resolveTimeout: configuration.resolveTimeout)
        memory = ImageMemoryCache(budget: configuration.memoryBytes)
        disk = configuration.diskBytes > 0
            ? try ImageDiskCache(directory: configuration.cacheDirectory + "/images", budget: configuration.diskBytes) : nil
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
        router.addStored("/v1/images/{token}") { [self] request, token, answer in
            answerStored(request, token: token, &answer)
        }
    }

    /// A memory-tier hit for a token verified before, answered as stored bytes (declined
    /// otherwise: the ordinary route verifies the token and looks further).
    private func answerStored(_ request: RequestBytes, token: UnsafeRawBufferPointer, _ answer: inout StoredAnswer) -> Bool {
        guard let url = verified.url(for: token) else { return false }
        let image: CachedPage
        let file: OpenImageFile?
        if let inMemory = memory.get(url) {
            metrics.cacheEvent("hit", cache: "image_memory")
            image = inMemory
            file = nil
        } else if answer.filesAllowed, let disk, let open = disk.openFile(url) {
            metrics.cacheEvent("hit", cache: "image_disk")
            disk.noteHit(open)
            image = open.image
            file = open
        } else {
            return false
        }
        let notModified = request.header("if-none-match").map { image.matches(ifNoneMatch: $0) } ?? false
        answer.append(image.heads.head(gzip: false, notModified: notModified))
        answer.append(file == nil ? Self.memoryHitFields : Self.diskHitFields)
        answer.status = notModified ? 304 : 200
        if !notModified {
            answer.body = image.identity
            answer.file = file
        }
        return true
    }

    /// The fields every stored hit carries besides the image's own.
    private static let memoryHitFields: [UInt8] = Array(
        "Cache-Control: \(cacheControl)\r\nCache-Status: \(CacheStatus.hit(detail: "memory"))\r\n".utf8)
    private static let diskHitFields: [UInt8] = Array(
        "Cache-Control: \(cacheControl)\r\nCache-Status: \(CacheStatus.hit(detail: "disk"))\r\n".utf8)

    private func serve(_ request: GatewayRequest, context: RouteContext, responder: Responder) {
        guard let token = context.parameters["token"], let url = signer.url(from: token) else {
            responder.fail(Self.invalidToken)
            return
        }
        verified.remember(token, url: url)
        if let image = memory.get(url) {
            metrics.cacheEvent("hit", cache: "image_memory")
            responder.send(Self.answer(image, request, cacheStatus: CacheStatus.hit(detail: "memory")))
            return
        }
        metrics.cacheEvent("miss", cache: "image_memory")
        let leads = coalescer.join(url) { served in
            switch served.outcome {
            case .image(let image): responder.send(Self.answer(image, request, cacheStatus: served.cacheStatus))
            case .failure(let error): responder.fail(error.adding(header: "Cache-Status", served.cacheStatus))
            }
        }
        guard leads else { return }
        guard let origin = context.origin else {
            coalescer.finish(url, with: Served(outcome: .failure(.serviceUnavailable("No origin is configured.")), cacheStatus: CacheStatus.notStored(fwd: "miss", status: nil)))
            return
        }
        guard let disk else {
            fetch(url, client: origin, requestID: request.requestID)
            return
        }
        disk.read(url) { [self] image in
            guard let image else {
                metrics.cacheEvent("miss", cache: "image_disk")
                origin.loop.execute { [self] in fetch(url, client: origin, requestID: request.requestID) }
                return
            }
            metrics.cacheEvent("hit", cache: "image_disk")
            storeInMemory(image, url)
            coalescer.finish(url, with: Served(outcome: .image(image), cacheStatus: CacheStatus.hit(detail: "disk")))
        }
    }

    /// Fetches `url` upstream (on `client`'s loop), stores what it got in both tiers, and
    /// ends the lookup. Failures are not stored.
    private func fetch(_ url: String, client: OriginClient, requestID: String) {
        fetcher.fetch(url, client: client, requestID: requestID) { [self] outcome in
            guard case .image(let image) = outcome else {
                coalescer.finish(url, with: Served(outcome: outcome, cacheStatus: CacheStatus.notStored(fwd: "miss", status: nil)))
                return
            }
            storeInMemory(image, url)
            disk?.write(image, for: url)
            coalescer.finish(url, with: Served(outcome: outcome, cacheStatus: CacheStatus.stored(fwd: "miss")))
        }
    }

    private func storeInMemory(_ image: CachedPage, _ url: String) {
        let evicted = memory.store(image, for: url)
        for _ in 0..<evicted { metrics.cacheEvent("eviction", cache: "image_memory") }
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
