import GatewayModels
import HTTPInterface
import ImageProcessing
import Observability
import Routing
import Tracing
import GatewaySupport

/// `GET /v1/images/{token}?w=N`: the image a signed token names, at an allowed width (none:
/// the source's own), in the format the client's `Accept` allows (AVIF, else WebP, else the
/// source's), metadata stripped. Every image the gateway sends is rendered once by libvips
/// and then served from the memory tier, else the disk tier.
///
/// Runs as a `deferred` handler on the loop that owns the request. A token whose signature
/// does not verify is refused (403) before anything else happens, then a width outside the
/// allowed set (400). A memory miss joins the one lookup for its variant: the leader reads the
/// disk tier on its queue (never on a loop); on a disk miss it gets the source (the disk
/// tier's copy of the origin's bytes, else one fetch per URL through the loop's
/// `OriginClient`, however many variants wait for it) and renders on an ``ImageWorkers``
/// thread. Every waiter's responder writes on its own loop.
public final class ImageReads: Sendable {
    /// What one lookup produced, and the `Cache-Status` to answer it with.
    struct Served: Sendable {
        let outcome: ImageFetchOutcome
        let cacheStatus: CacheStatusField
    }

    let signer: ImageSigner
    let fetcher: ImageFetcher
    let memory: ImageMemoryCache
    /// Nil when `diskBytes` is 0.
    let disk: ImageDiskCache?
    let metrics: GatewayMetrics
    let workers: ImageWorkers
    /// The allowed `?w=` values, ascending.
    let widths: [Int]
    /// The newer formats offered to clients that name them in `Accept`.
    let formats: Set<ImageAccept.Choice>
    /// Limits and encoder settings of every render (its width and format set per variant).
    let renderOptions: RenderOptions
    /// `""` (root-relative URLs) or the public base URL without a trailing `/`.
    private let publicBase: String
    private let coalescer = RequestCoalescer<ImageVariant, Served>()
    /// One source fetch per URL, whichever variants wait for it.
    private let sources = RequestCoalescer<String, ImageFetchOutcome>()
    /// Tokens already verified, for memory-tier hits answered as stored bytes.
    private let verified = VerifiedTokens()
    /// Sources' placeholders (sizes and ThumbHashes), and one preparation per URL.
    let placeholders = ImagePlaceholders()
    /// The replicas' Redis tier, whose records carry placeholders too; nil without
    /// `--redis-url`.
    let shared: SharedPages?
    let placeholderPreparations = RequestCoalescer<String, ImagePlaceholders.Lookup>()
    /// The process's prefetch lane: every placeholder preparation (and its source's fetch)
    /// runs in it.
    let lane: PrefetchLane
    /// Sources the lane fetched, to count whether a client's render used them.
    let fetchedAhead: FetchedAheadSources

    static let cacheControl = "public, max-age=31536000, immutable"
    static let invalidToken = GatewayError(status: 403, detail: "The image token is not valid.")
    static let busy = GatewayError.serviceUnavailable("Every image worker is busy; retry in a moment.").adding(header: "Retry-After", "1")

    /// - Throws: when the disk tier's directory (`images/` under the cache directory) cannot
    ///   be created. Its index is rebuilt here, before any loop serves.
    /// - Parameter lane: the process's prefetch lane (nil: one of its own, sized for the
    ///   default `--origin-max-connections`).
    /// - Parameter breakers: one circuit breaker per image host (nil: none).
    init(
        origin: OriginEndpoint, configuration: ImageConfiguration, signer: ImageSigner, metrics: GatewayMetrics, lane: PrefetchLane? = nil,
        shared: SharedPages? = nil, breakers: HostBreakers? = nil
    ) throws {
        self.signer = signer
        self.shared = shared
        self.metrics = metrics
        self.lane = lane ?? PrefetchLane(metrics: metrics)
        fetchedAhead = FetchedAheadSources(metrics: metrics)
        var fetcher = ImageFetcher(
            policy: ImageHostPolicy(origin: origin, allowedHosts: configuration.allowedHosts), maxBytes: configuration.maxImageBytes,
            maxRedirects: configuration.maxRedirects, resolveTimeout: configuration.resolveTimeout)
        fetcher.breakers = breakers
        self.fetcher = fetcher
        memory = ImageMemoryCache(budget: configuration.memoryBytes)
        disk = configuration.diskBytes > 0
            ? try ImageDiskCache(directory: configuration.cacheDirectory + "/images", budget: configuration.diskBytes) : nil
        workers = ImageWorkers(count: configuration.renderWorkers, maxWaiting: configuration.maxWaitingRenders)
        widths = configuration.widths.sorted()
        formats = configuration.formats
        renderOptions = RenderOptions(
            width: nil, format: .jpeg, maxPixels: configuration.maxPixels, timeLimit: configuration.renderTimeout,
            avifSpeed: configuration.avifSpeed)
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
        router.add(.get, "/v1/images/{token}", limit: RateLimitKind.images.name, stored: { [self] request, token, answer in
            answerStored(request, token: token, &answer)
        }, .deferred { [self] request, context, responder in
            serve(request, context: context, responder: responder)
        })
    }

    /// A memory- or disk-tier hit for a token verified before, answered as stored bytes
    /// (declined otherwise, and for a `w` that is not plainly one of the allowed widths: the
    /// ordinary route verifies the token, judges `w` and looks further).
    private func answerStored(_ request: RequestBytes, token: UnsafeRawBufferPointer, _ answer: inout StoredAnswer) -> Bool {
        guard let url = verified.url(for: token) else { return false }
        let width: Int
        switch request.queryValue("w") {
        case .absent: width = 0
        case .plain(let bytes):
            guard let asked = Self.width(bytes, allowed: widths) else { return false }
            width = asked
        case .encoded: return false
        }
        let variant = ImageVariant(url: url, width: width, choice: ImageAccept.choose(bytes: request.header("accept"), offered: formats))
        let image: CachedPage
        let file: OpenImageFile?
        if let inMemory = memory.get(variant) {
            metrics.cacheEvent("hit", cache: "image_memory")
            image = inMemory
            file = nil
        } else if answer.filesAllowed, let disk, let open = disk.openFile(variant) {
            metrics.cacheEvent("hit", cache: "image_disk")
            disk.noteHit(open)
            image = open.image
            file = open
        } else {
            // Verified, judged and missed here: the route's handler goes on from the variant.
            answer.declined = StoredProbe(variant: variant)
            return false
        }
        let notModified = request.header("if-none-match").map { image.matches(ifNoneMatch: $0) } ?? false
        image.heads.append(gzip: false, notModified: notModified, to: &answer)
        answer.append(file == nil ? Self.memoryHitFields : Self.diskHitFields)
        answer.status = notModified ? 304 : 200
        answer.fromCache = true
        if !notModified {
            answer.body = image.identity
            answer.file = file
        }
        return true
    }

    /// The fields every stored hit carries besides the image's own.
    private static let memoryHitFields = StoredFields(fields: [
        ("Cache-Control", cacheControl), ("Cache-Status", CacheStatus.hit(detail: "memory").value), ("Vary", "Accept"),
    ])
    private static let diskHitFields = StoredFields(fields: [
        ("Cache-Control", cacheControl), ("Cache-Status", CacheStatus.hit(detail: "disk").value), ("Vary", "Accept"),
    ])

    /// An allowed width from `?w=`'s bytes: 1 to 5 digits naming one of `allowed`; nil
    /// otherwise.
    static func width(_ bytes: UnsafeRawBufferPointer, allowed: [Int]) -> Int? {
        guard (1...5).contains(bytes.count) else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return allowed.contains(value) ? value : nil
    }

    /// The 400 for a `w` that is not an allowed width.
    var invalidWidth: GatewayError {
        .invalidFields([FieldError(field: "w", message: "must be one of \(widths.map(String.init).joined(separator: ", ")).")])
    }

    /// What the stored answer found before it declined: a verified token's variant that the
    /// memory tier (and, on plain connections, the disk tier's open files) did not hold.
    struct StoredProbe: Sendable {
        var variant: ImageVariant
    }

    private func serve(_ request: GatewayRequest, context: RouteContext, responder: Responder) {
        let variant: ImageVariant
        if let probe = context.storedProbe as? StoredProbe {
            // Verified, judged and looked up a moment ago on this loop: not again.
            variant = probe.variant
        } else {
            guard let token = context.parameters["token"], let url = signer.url(from: token) else {
                responder.fail(Self.invalidToken)
                return
            }
            var width = 0
            if var asked = request.queryValue("w") {
                guard let allowed = asked.withUTF8({ Self.width(UnsafeRawBufferPointer($0), allowed: widths) }) else {
                    responder.fail(invalidWidth)
                    return
                }
                width = allowed
            }
            verified.remember(token, url: url)
            variant = ImageVariant(url: url, width: width, choice: ImageAccept.choose(request.headers["Accept"], offered: formats))
            if let image = memory.get(variant) {
                metrics.cacheEvent("hit", cache: "image_memory")
                responder.send(Self.answer(image, request, cacheStatus: CacheStatus.hit(detail: "memory")))
                return
            }
        }
        metrics.cacheEvent("miss", cache: "image_memory")
        let leads = coalescer.join(variant, scope: context.trace) { served in
            switch served.outcome {
            case .image(let image): responder.send(Self.answer(image, request, cacheStatus: served.cacheStatus))
            case .failure(let error): responder.fail(error.adding(cacheStatus: served.cacheStatus).adding(header: "Vary", "Accept"))
            }
        }
        guard leads else { return }
        let finish: @Sendable (Served) -> Void = { [self] served in coalescer.finish(variant, with: served) }
        guard let disk else {
            render(variant, context: context, requestID: request.requestID, trace: request.trace, completion: finish)
            return
        }
        disk.read(variant) { [self] image in
            guard let image else {
                metrics.cacheEvent("miss", cache: "image_disk")
                render(variant, context: context, requestID: request.requestID, trace: request.trace, completion: finish)
                return
            }
            metrics.cacheEvent("hit", cache: "image_disk")
            storeInMemory(image, variant)
            finish(Served(outcome: .image(image), cacheStatus: CacheStatus.hit(detail: "disk")))
        }
    }

    /// Renders `variant` from its source on a worker, stores it in both tiers, and hands it to
    /// `completion` (on the worker thread). Failures are not stored. With the request
    /// recorded (`context.trace`), the render is an INTERNAL span `image.render` of it.
    private func render(
        _ variant: ImageVariant, context: RouteContext, requestID: String, trace: TraceContext,
        completion: @escaping @Sendable (Served) -> Void
    ) {
        fetchedAhead.used(variant.url)
        let scope = context.trace
        source(variant.url, origin: context.origin, redis: context.redis, requestID: requestID, trace: trace) { [self] outcome in
            guard case .image(let source) = outcome, let sourceFormat = ImageFormat(sniffing: source.identity) else {
                let failure = if case .failure(let error) = outcome { error } else { GatewayError.badGateway("The image could not be read.") }
                return completion(Served(outcome: .failure(failure), cacheStatus: CacheStatus.notStored(fwd: "miss", status: nil)))
            }
            var settings = renderOptions
            settings.width = variant.width == 0 ? nil : variant.width
            settings.format = variant.outputFormat(source: sourceFormat)
            let options = settings
            let format = options.format.rawValue
            let submitted = workers.submit { [self] in
                let started = ContinuousClock.now
                let result = Result { () throws(ImageProcessingError) in try ImageProcessor.render(source.identity, options) }
                if let scope {
                    scope.recordInternal(
                        "image.render", elapsed: .now - started,
                        attributes: [
                            SpanAttribute(SemanticConventions.imageFormat, format), SpanAttribute(SemanticConventions.imageWidth, variant.width),
                            SpanAttribute(SemanticConventions.imageSourceBytes, source.identity.count),
                        ],
                        failure: { if case .failure(let error) = result { Self.outcome(error) } else { nil } }())
                }
                switch result {
                case .success(let rendered):
                    metrics.imageRender(format: format, outcome: "ok", duration: .now - started)
                    let image = CachedPage(
                        status: 200, contentType: rendered.format.contentType, identity: rendered.bytes, gzip: nil, storedAt: .now,
                        timeToLive: .seconds(31_536_000))
                    storeInMemory(image, variant)
                    disk?.write(image, for: variant)
                    completion(Served(outcome: .image(image), cacheStatus: CacheStatus.stored(fwd: "miss")))
                case .failure(let error):
                    metrics.imageRender(format: format, outcome: Self.outcome(error), duration: .now - started)
                    completion(Served(outcome: .failure(Self.gatewayError(error)), cacheStatus: CacheStatus.notStored(fwd: "miss", status: nil)))
                }
            }
            if !submitted {
                metrics.imageRender(format: format, outcome: "busy", duration: nil)
                completion(Served(outcome: .failure(Self.busy), cacheStatus: CacheStatus.notStored(fwd: "miss", status: nil)))
            }
        }
    }

    /// The origin's bytes for `url`: the disk tier's copy, else one fetch (through `origin`,
    /// on its loop) for every variant that waits, stored on disk for the next variant.
    /// `completion` may run on any thread.
    /// `fetchedAhead`: asked by the prefetch lane (a fetched source is remembered, to count
    /// whether a client's render used it). `redis`: the loop's connection to the replicas'
    /// Redis, where the placeholder computed from a fetched source is stored. `trace`: the
    /// trace of the request that needs it (the fetch's client span is recorded in it; a fetch
    /// other requests join is the first one's).
    func source(
        _ url: String, origin: (any OriginSending)?, redis: (any RedisCommanding)?, requestID: String, trace: TraceContext? = nil,
        fetchedAhead: Bool = false, completion: @escaping @Sendable (ImageFetchOutcome) -> Void
    ) {
        guard sources.join(url, waiter: completion) else { return }
        let finish: @Sendable (ImageFetchOutcome) -> Void = { [self] outcome in sources.finish(url, with: outcome) }
        guard let origin else {
            return finish(.failure(.serviceUnavailable("No origin is configured.")))
        }
        let fetch: @Sendable () -> Void = { [self] in
            origin.loop.execute { [self] in
                fetcher.fetch(url, client: origin, requestID: requestID, trace: trace) { [self] outcome in
                    guard case .image(let image) = outcome else { return finish(outcome) }
                    disk?.write(image, for: .source(url))
                    if fetchedAhead { self.fetchedAhead.remember(url) }
                    // Its placeholder too, queued after the render that waits for it.
                    let computesPlaceholder = reservePlaceholder(url)
                    finish(outcome)
                    if computesPlaceholder { computePlaceholder(fromFetched: url, image, redis: redis) }
                }
            }
        }
        guard let disk else { return fetch() }
        disk.read(.source(url)) { image in
            guard let image else { return fetch() }
            finish(.image(image))
        }
    }

    private func storeInMemory(_ image: CachedPage, _ variant: ImageVariant) {
        let evicted = memory.store(image, for: variant)
        for _ in 0..<evicted { metrics.cacheEvent("eviction", cache: "image_memory") }
    }

    /// The metric outcome of a failed render.
    static func outcome(_ error: ImageProcessingError) -> String {
        switch error {
        case .tooManyPixels: "too_many_pixels"
        case .timedOut: "timed_out"
        default: "failed"
        }
    }

    /// The answer for a source that cannot be rendered: 502, the origin's image being unusable
    /// (libvips' own message goes to no client).
    static func gatewayError(_ error: ImageProcessingError) -> GatewayError {
        switch error {
        case .tooManyPixels(_, _, let limit): .badGateway("The image has more than \(limit) pixels.")
        case .timedOut: .badGateway("The image took too long to render.")
        case .notAnImage, .failed, .unavailable: .badGateway("The image could not be decoded.")
        }
    }

    /// The response for `image`: its own type, immutable caching, its strong ETag, 304 when
    /// `If-None-Match` names it, `Vary: Accept` (the format depends on it). Never compressed
    /// (image types are not compressible).
    static func answer(_ image: CachedPage, _ request: GatewayRequest, cacheStatus: CacheStatusField) -> GatewayResponse {
        let headers: HTTPHeaders = ["ETag": image.etag, "Cache-Control": cacheControl, "Cache-Status": cacheStatus.value, "Vary": "Accept"]
        if let ifNoneMatch = request.headers["If-None-Match"], image.matches(ifNoneMatch: ifNoneMatch) {
            return GatewayResponse(status: 304, headers: headers, cacheOutcome: cacheStatus.outcome)
        }
        var response = GatewayResponse(status: 200, headers: headers, body: image.identity, cacheOutcome: cacheStatus.outcome)
        response.headers.add("Content-Type", image.contentType)
        return response
    }

    /// Drops every image of the memory tier and every known placeholder at once, and every
    /// file of the disk tier (sources, renders, placeholder records) on its queue;
    /// `completion` gets how many, from the disk queue (or at once without a disk tier).
    func purge(completion: @escaping @Sendable (Int) -> Void) {
        placeholders.removeAll()
        let inMemory = memory.removeAll()
        guard let disk else { return completion(inMemory) }
        disk.removeAll { onDisk in completion(inMemory + onDisk) }
    }
}
