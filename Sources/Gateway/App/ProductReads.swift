import Dispatch
import GatewayModels
import Synchronization

/// `GET /v1/products?page=N` and `GET /v1/products/{id}`: contract pages from the cache when
/// possible, otherwise from the origin through the loop's `OriginClient`.
///
/// Runs as `deferred` handlers on the loop that owns the request. A fresh hit writes stored
/// bytes. A miss joins the one origin fetch for its key (from any loop); the leader maps and
/// gzips the origin's body off the loop, stores it, and every waiter answers from the
/// stored page on its own loop. Stale pages are served while one refresh runs, and expired
/// ones are served when the origin fails, up to the stale-if-error window.
public final class ProductReads: Sendable {
    /// What a fetch for one key produced.
    enum Outcome: Sendable {
        case page(CachedPage)
        case failure(GatewayError, originStatus: Int?)
    }

    private enum Kind: Sendable {
        case list(page: Int)
        case detail(id: Int64)
    }

    let cache: PageCache
    let configuration: ReadPathConfiguration
    public let endpoint: OriginEndpoint
    let metrics: GatewayMetrics
    let compression: ResponseCompression
    /// Rewrites every thumbnail and image URL (into signed `/v1/images/…` URLs).
    let imageURL: ImageURLRewriter
    private let coalescer = RequestCoalescer<PageCacheKey, Outcome>()
    /// `Accept-Language` values already resolved, for the stored-answer path.
    private let locales: LocaleMemo
    private let occupancy = PageOccupancy()
    /// Prefetches running now; at most `maxPrefetches`.
    private let prefetches = Atomic<Int>(0)
    /// Counts invalidations: a fetch that began before one must not store what it got.
    private let invalidations = Atomic<Int>(0)
    static let maxPage = 10_000
    static let maxPrefetches = 8

    public init(
        endpoint: OriginEndpoint, configuration: ReadPathConfiguration, compression: ResponseCompression, metrics: GatewayMetrics,
        imageURL: @escaping ImageURLRewriter = identityImageURL
    ) {
        self.endpoint = endpoint
        self.imageURL = imageURL
        self.configuration = configuration
        self.compression = compression
        self.metrics = metrics
        cache = PageCache(configuration: configuration.cache)
        locales = LocaleMemo(configuration.locales)
    }

    /// Adds the two read routes to `router`.
    public func register(in router: inout Router) {
        router.add(.get, "/v1/products", .deferred { [self] request, context, responder in
            guard let page = Self.page(from: request) else {
                responder.fail(GatewayError.invalidFields([FieldError(field: "page", message: "must be a whole number from 1 to \(Self.maxPage).")]))
                return
            }
            serve(.list(page: page), request: request, context: context, responder: responder)
        })
        router.add(.get, "/v1/products/{id}", .deferred { [self] request, context, responder in
            guard let id = ProductID.parse(context) else { return responder.fail(ProductID.invalid) }
            serve(.detail(id: id), request: request, context: context, responder: responder)
        })
        router.addStored("/v1/products") { [self] request, _, answer in
            let page: Int
            switch request.queryValue("page") {
            case .absent: page = 1
            case .plain(let bytes):
                guard let number = Self.page(bytes) else { return false }
                page = number
            case .encoded: return false
            }
            return answerStored(.list(page: page), request, &answer)
        }
        router.addStored("/v1/products/{id}") { [self] request, id, answer in
            guard let id = ProductID.parse(id) else { return false }
            return answerStored(.detail(id: id), request, &answer)
        }
    }

    /// A fresh page answered from the cache as stored bytes (or declined: the ordinary route
    /// then answers, fetching or revalidating as needed). On the loop thread; allocates
    /// nothing for the common header values.
    private func answerStored(_ kind: Kind, _ request: RequestBytes, _ answer: inout StoredAnswer) -> Bool {
        let locale = locales.resolve(request.header("accept-language"))
        let now = ContinuousClock.now
        guard let (page, freshness) = cache.lookup(Self.key(kind, locale: locale), now: now), freshness == .fresh, page.status == 200
        else { return false }
        metrics.cacheEvent("hit", cache: "page")
        let gzip = page.gzip != nil && AcceptEncoding.allowsGzip(bytes: request.header("accept-encoding"))
        let notModified = request.header("if-none-match").map { page.matches(ifNoneMatch: $0) } ?? false
        let secondsLeft = Self.secondsLeft(page, now)
        answer.append(page.heads.head(gzip: gzip, notModified: notModified))
        answer.append(Self.cacheControlPrefix)
        answer.appendDecimal(secondsLeft)
        answer.append(Self.cacheStatusHitPrefix)
        answer.appendDecimal(secondsLeft)
        answer.append(Self.lineEnd)
        answer.status = notModified ? 304 : 200
        if !notModified {
            answer.body = gzip ? page.gzip! : page.identity
            answer.gzipOf = gzip ? page.identity.count : nil
        }
        return true
    }

    private static let cacheControlPrefix: [UInt8] = Array("Cache-Control: public, max-age=".utf8)
    private static let cacheStatusHitPrefix: [UInt8] = Array("\r\nCache-Status: \(CacheStatus.name); hit; ttl=".utf8)
    private static let lineEnd: [UInt8] = Array("\r\n".utf8)

    /// `page` from the raw query value: 1 to `maxPage` in plain digits.
    static func page(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 5 else { return nil }
        var page = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            page = page * 10 + Int(byte - 0x30)
        }
        return (1...maxPage).contains(page) ? page : nil
    }

    /// The `page` query parameter: absent means 1; anything but 1…maxPage in plain digits is
    /// refused.
    static func page(from request: GatewayRequest) -> Int? {
        guard var text = request.queryValue("page") else { return 1 }
        return text.withUTF8 { page(UnsafeRawBufferPointer($0)) }
    }

    private func serve(_ kind: Kind, request: GatewayRequest, context: RouteContext, responder: Responder) {
        let locale = configuration.locales.resolve(acceptLanguage: request.headers["Accept-Language"])
        let key = Self.key(kind, locale: locale)
        let now = ContinuousClock.now
        let cached = cache.lookup(key, now: now)
        switch cached?.freshness {
        case .fresh:
            metrics.cacheEvent("hit", cache: "page")
            let page = cached!.page
            responder.send(answer(page, request, locale, status: CacheStatus.hit(ttl: Self.secondsLeft(page, now)), now: now))
            return
        case .stale:
            metrics.cacheEvent("stale", cache: "page")
            responder.send(answer(cached!.page, request, locale, status: CacheStatus.staleWhileRevalidating, now: now))
            fetch(kind, key: key, locale: locale, request: request, context: context) { _ in }
            return
        case .expired, nil:
            metrics.cacheEvent(cached == nil ? "miss" : "expired", cache: "page")
        }
        let fwd = cached == nil ? "miss" : "stale"
        fetch(kind, key: key, locale: locale, request: request, context: context) { [self] outcome in
            let now = ContinuousClock.now
            switch outcome {
            case .page(let page):
                responder.send(answer(page, request, locale, status: CacheStatus.stored(fwd: fwd), now: now))
                if case .list(let number) = kind, (occupancy.itemCount(number) ?? 1) > 0 {
                    prefetch(page: number + 1, locale: locale, request: request, context: context)
                }
            case .failure(let error, let originStatus):
                if let stale = cached?.page, error.status >= 500 {
                    metrics.cacheEvent("stale_if_error", cache: "page")
                    responder.send(answer(stale, request, locale, status: CacheStatus.staleIfError(status: originStatus), now: now))
                } else {
                    responder.fail(error.adding(header: "Cache-Status", CacheStatus.notStored(fwd: fwd, status: originStatus)))
                }
            }
        }
    }

    private func answer(_ page: CachedPage, _ request: GatewayRequest, _ locale: ClientLocale, status: String, now: ContinuousClock.Instant)
        -> GatewayResponse
    {
        if page.status == 404 {
            var response = GatewayError.notFound("No product at this address.").response(requestID: request.requestID)
            response.headers.set("Cache-Status", status)
            response.headers.set("Cache-Control", "public, max-age=\(Self.secondsLeft(page, now))")
            return response
        }
        return PageResponse.render(page, for: request, locale: locale.identifier, cacheStatus: status, maxAge: Self.secondsLeft(page, now))
    }

    /// Joins (or leads) the fetch for `key`; `completion` gets the outcome on whichever
    /// thread finishes it.
    private func fetch(
        _ kind: Kind, key: PageCacheKey, locale: ClientLocale, request: GatewayRequest, context: RouteContext,
        completion: @escaping @Sendable (Outcome) -> Void
    ) {
        guard coalescer.join(key, waiter: completion) else { return }
        guard let origin = context.origin else {
            coalescer.finish(key, with: .failure(.serviceUnavailable("No origin is configured."), originStatus: nil))
            return
        }
        let target: String
        switch kind {
        case .list(let page): target = configuration.generation.listTarget(page: page)
        case .detail(let id): target = configuration.generation.detailTarget(id: id)
        }
        let originRequest = OriginRequest(method: .get, target: target, requestID: request.requestID)
        let generation = invalidations.load(ordering: .acquiring)
        origin.send(originRequest, to: endpoint) { [self] result in
            switch result {
            case .success(let response) where response.status == 200:
                // Mapping and compression are CPU work: off the loop.
                DispatchQueue.global().async { [self] in
                    coalescer.finish(
                        key, with: store(response.body, kind: kind, key: key, locale: locale, context: context, generation: generation))
                }
            case .success(let response) where response.status == 404:
                let page = CachedPage(
                    status: 404, contentType: "application/problem+json", identity: [], gzip: nil, storedAt: .now,
                    timeToLive: configuration.notFoundTimeToLive)
                storeCounting(page, key, generation: generation)
                coalescer.finish(key, with: .page(page))
            case .success(let response):
                let error: GatewayError = response.status >= 500
                    ? .badGateway("The origin answered \(response.status).")
                    : .badGateway("The origin refused the request with \(response.status).")
                coalescer.finish(key, with: .failure(error, originStatus: response.status))
            case .failure(let failure):
                coalescer.finish(key, with: .failure(failure.gatewayError, originStatus: nil))
            }
        }
    }

    /// Maps the origin's body to contract bytes, gzips them, stores the page.
    private func store(
        _ body: [UInt8], kind: Kind, key: PageCacheKey, locale: ClientLocale, context: RouteContext, generation: Int
    ) -> Outcome {
        let identity: [UInt8]
        let timeToLive: Duration
        do {
            switch kind {
            case .list(let page):
                var contract = try configuration.generation.mapPage(bytes: body, page: page, locale: locale, imageURL: imageURL)
                if configuration.generation == .v1 {
                    // v1 has no "has next" flag: say what page + 1 held when it is known
                    // (learning only from answers no write has overtaken).
                    if invalidations.load(ordering: .acquiring) == generation {
                        learn(page: page, itemCount: contract.items.count)
                    }
                    if let next = occupancy.itemCount(page + 1) { contract.hasNextPage = next > 0 }
                }
                identity = contract.jsonBytes()
                timeToLive = configuration.listTimeToLive
            case .detail:
                identity = try configuration.generation.detailJSON(bytes: body, locale: locale, imageURL: imageURL)
                timeToLive = configuration.detailTimeToLive
            }
        } catch {
            context.logger.warning("origin response not readable", metadata: ["reason": "\(error.reason)"])
            return .failure(.badGateway("The origin's response could not be read."), originStatus: 200)
        }
        let gzip = identity.count >= compression.minimumBytes ? Gzip.compress(identity, level: compression.level) : nil
        let page = CachedPage(
            status: 200, contentType: "application/json", identity: identity, gzip: gzip, storedAt: .now, timeToLive: timeToLive,
            fields: [("Vary", PageResponse.vary), ("Content-Language", locale.identifier)])
        storeCounting(page, key, generation: generation)
        return .page(page)
    }

    /// Records how many items v1 `page` held. When that contradicts the `hasNextPage` page
    /// `page - 1` was rendered with (what was known of `page` then, or else "page - 1 is
    /// full"), page `page - 1` leaves the cache so its next rendering says the truth.
    private func learn(page: Int, itemCount: Int) {
        let previous = occupancy.record(page, itemCount: itemCount)
        guard page > 1 else { return }
        let renderedHasNext = previous.map { $0 > 0 }
            ?? occupancy.itemCount(page - 1).map { $0 >= OriginGeneration.v1PageSize }
        guard renderedHasNext != (itemCount > 0) else { return }
        cache.remove { $0.route == .list && $0.number == Int64(page - 1) }
    }

    /// Fetches list page `page` in the background after a miss on the page before it, so the
    /// next scroll is a hit. Bounded; skipped when cached or already running.
    private func prefetch(page: Int, locale: ClientLocale, request: GatewayRequest, context: RouteContext) {
        guard page <= Self.maxPage, let origin = context.origin else { return }
        let key = Self.key(.list(page: page), locale: locale)
        guard cache.lookup(key, now: .now) == nil else { return }
        guard prefetches.add(1, ordering: .relaxed).newValue <= Self.maxPrefetches else {
            prefetches.subtract(1, ordering: .relaxed)
            return
        }
        metrics.cacheEvent("prefetch", cache: "page")
        origin.loop.execute { [self] in
            fetch(.list(page: page), key: key, locale: locale, request: request, context: context) { [self] _ in
                prefetches.subtract(1, ordering: .relaxed)
            }
        }
    }

    /// Drops what a write to product `id` (nil: a new product) may have made untrue: its
    /// details in every locale, every list page, and what is known of the pages' contents.
    public func invalidate(productID id: Int64?) {
        invalidations.add(1, ordering: .releasing)
        cache.remove { key in key.route == .list || (key.route == .detail && key.number == id) }
        occupancy.reset()
    }

    /// Stores `page` unless an invalidation happened since its fetch began (`generation`):
    /// then it may show the state before a write, and only the requests that waited for it
    /// get it.
    private func storeCounting(_ page: CachedPage, _ key: PageCacheKey, generation: Int) {
        guard invalidations.load(ordering: .acquiring) == generation else { return }
        let evicted = cache.store(page, for: key)
        for _ in 0..<evicted { metrics.cacheEvent("eviction", cache: "page") }
    }

    private static func key(_ kind: Kind, locale: ClientLocale) -> PageCacheKey {
        switch kind {
        case .list(let page): PageCacheKey(route: .list, number: Int64(page), locale: locale.identifier)
        case .detail(let id): PageCacheKey(route: .detail, number: id, locale: locale.identifier)
        }
    }

    private static func secondsLeft(_ page: CachedPage, _ now: ContinuousClock.Instant) -> Int {
        max(0, Int((page.timeToLive - (now - page.storedAt)).components.seconds))
    }
}
