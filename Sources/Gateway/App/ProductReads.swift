import BodyCompression
import Dispatch
import GatewayModels
import HTTPInterface
import Observability
import Routing
import Tracing
import GatewaySupport

/// `GET /v1/products?page=N&pageSize=M&q=…` and `GET /v1/products/{id}`: contract pages from
/// the cache when possible, otherwise from the origin through the loop's `OriginClient`.
///
/// A v2/v2b list page is one origin request (`page_no`, `items_per_page`, `search_value`). A
/// v1 origin has pages of 20 only, so a contract page is assembled from the origin pages
/// holding its items plus the one holding the item after them (``V1OriginPages`` keeps them),
/// which makes `hasNextPage` exact on every generation.
///
/// Runs as `deferred` handlers on the loop that owns the request. A fresh hit writes stored
/// bytes. A miss joins the one origin fetch for its key (from any loop); the leader maps and
/// gzips the origin's body off the loop, stores it, and every waiter answers from the
/// stored page on its own loop. Stale pages are served while one refresh runs, and expired
/// ones are served when the origin fails, up to the stale-if-error window.
public final class ProductReads: Sendable {
    /// What a fetch for one key produced.
    enum Outcome: Sendable {
        /// `hasNextPage` of a list page (false for a detail); where the page came from.
        case page(CachedPage, hasNextPage: Bool, tier: Tier)
        /// `fallback`: a stale page of the shared tier, to serve if nothing better is at hand.
        case failure(GatewayError, originStatus: Int?, fallback: CachedPage?)
        /// A capped refresh (see ``capsRefresh(_:now:)``) found every replica's recovery slots
        /// taken: nothing was fetched; the stored page (or `fallback`, the shared tier's stale
        /// one) is served as it is, and a later read refreshes it.
        case deferred(fallback: CachedPage?)

        /// `error.type` of a background fetch that ended so (its status, or `deferred`); nil
        /// for a page.
        var failureType: String? {
            switch self {
            case .page: nil
            case .failure(let error, _, _): String(error.status)
            case .deferred: "deferred"
            }
        }
    }

    /// Where a fetched page came from, for `Cache-Status`.
    enum Tier: Sendable {
        /// The shared tier (Redis) had it fresh.
        case shared
        /// The origin; `sharedConsulted` when the shared tier missed first (and stores it now).
        case origin(sharedConsulted: Bool)
    }

    enum Kind: Sendable {
        case list(ListQuery)
        /// `placeholders`: `include=placeholders`.
        case detail(id: Int64, placeholders: Bool)

        var includesPlaceholders: Bool {
            switch self {
            case .list(let query): query.includePlaceholders
            case .detail(_, let placeholders): placeholders
            }
        }
    }

    struct FetchKey: Hashable, Sendable {
        var key: PageCacheKey
        var generation: Int
    }

    /// What the v1 origin pages of one contract page gave.
    struct V1Fetch: Sendable {
        var pages: [V1ItemsPage]
        /// When the oldest of them was fetched: the contract page is as old as that.
        var oldest: ContinuousClock.Instant
        /// The page read only to learn whether another item follows could not be read: the
        /// contract page has all its items, but `hasNextPage` is a guess.
        var readAheadFailed: Bool
    }

    /// Why an origin fetch gave no body to map.
    struct FetchFailure: Error {
        var error: GatewayError
        var originStatus: Int?
    }

    let cache: PageCache
    let configuration: ReadPathConfiguration
    public let endpoint: OriginEndpoint
    /// The origin's API generation (paths and field mapping).
    let originGeneration: OriginGeneration
    let metrics: GatewayMetrics
    let compression: ResponseCompression
    /// Rewrites every thumbnail and image URL (into signed `/v1/images/…` URLs).
    let imageURL: ImageURLRewriter
    /// One fetch per key and cache generation: a request that comes after a write never joins
    /// a fetch that began before it.
    let coalescer = RequestCoalescer<FetchKey, Outcome>()
    /// `Accept-Language` values already resolved, for the stored-answer path.
    private let locales: LocaleMemo
    /// v1 origin pages, for assembling contract pages (unused on v2/v2b).
    let v1Pages: V1OriginPages
    /// The process's prefetch lane: next pages, thumbnails' sources and placeholders,
    /// details before the tap.
    let lane: PrefetchLane
    /// Keys the lane is fetching now, and for what: the pages stored for them are marked.
    let prefetching = Locked<[PageCacheKey: PrefetchLane.Kind]>([:])
    /// The replicas' shared tier; nil without `--redis-url`.
    let shared: SharedPages?
    /// The images' placeholders, for `include=placeholders`; nil: answered with every
    /// placeholder null (tests that build the reads alone).
    let images: ImageReads?
    /// Keys whose origin fetch failed lately, by ``originKey(_:)``: not fetched again before
    /// their backoff ends (`--origin-retry-max`).
    let backoff: FetchBackoff<PageCacheKey>
    /// The origin's circuit breaker; nil: none (tests that build the reads alone).
    let breaker: CircuitBreaker?
    /// Refreshes of stored pages while the origin recovers go through these, a few at a time
    /// (``capsRefresh(_:now:)``).
    let refreshSlots = RefreshSlots(limit: ProductReads.recoveryRefreshes)
    /// How many stored pages are refreshed at once while the origin recovers: by this process,
    /// and with `--redis-url` by every replica together (their shared recovery slots).
    static let recoveryRefreshes = 4
    /// The answer to `q` on an origin that cannot search.
    static let searchUnsupported = GatewayError(status: 501, detail: "Search is not supported by this origin.")

    init(
        endpoint: OriginEndpoint, generation: OriginGeneration, configuration: ReadPathConfiguration, compression: ResponseCompression, metrics: GatewayMetrics,
        imageURL: @escaping ImageURLRewriter = identityImageURL, shared: SharedPages? = nil, images: ImageReads? = nil,
        backoff: FetchBackoff<PageCacheKey> = FetchBackoff(), breaker: CircuitBreaker? = nil
    ) {
        self.backoff = backoff
        self.breaker = breaker
        self.shared = shared
        self.images = images
        lane = images?.lane ?? PrefetchLane(metrics: metrics)
        self.endpoint = endpoint
        originGeneration = generation
        self.imageURL = imageURL
        self.configuration = configuration
        self.compression = compression
        self.metrics = metrics
        cache = PageCache(configuration: configuration.cache)
        locales = LocaleMemo(configuration.locales)
        v1Pages = V1OriginPages(maxAge: min(configuration.listTimeToLive, configuration.v1OriginPageMaxAge))
        // Until the subscription to other replicas' writes works, L1 pages stay fresh briefly.
        if shared != nil { cache.setFreshnessCap(Self.unlinkedFreshness) }
    }

    /// How long an L1 page is fresh while this replica cannot hear other replicas' writes.
    static let unlinkedFreshness: Duration = .seconds(1)

    /// Adds the two read routes to `router`.
    public func register(in router: inout Router) {
        router.add(.get, "/v1/products", limit: RateLimitKind.reads.name, stored: { [self] request, _, answer in
            guard let query = ListQueryParameters.parseStored(request) else { return false }
            return answerStored(.list(query), request, &answer)
        }, .deferred { [self] request, context, responder in
            if let probe = context.storedProbe as? StoredProbe {
                // The stored answer parsed the query (no search: it declines those) and
                // looked the page up already.
                return serve(probe.kind, request: request, context: context, responder: responder, probe: probe)
            }
            switch ListQueryParameters.parse(request) {
            case .failure(let error):
                responder.fail(error)
            case .success(let query) where query.search != nil && !originGeneration.supportsSearch:
                responder.fail(Self.searchUnsupported)
            case .success(let query):
                serve(.list(query), request: request, context: context, responder: responder)
            }
        })
        router.add(.get, "/v1/products/{id}", limit: RateLimitKind.reads.name, stored: { [self] request, id, answer in
            guard let id = ProductID.parse(id), let placeholders = IncludeParameter.parseStored(request) else { return false }
            return answerStored(.detail(id: id, placeholders: placeholders), request, &answer)
        }, .deferred { [self] request, context, responder in
            if let probe = context.storedProbe as? StoredProbe {
                return serve(probe.kind, request: request, context: context, responder: responder, probe: probe)
            }
            // Every field error at once: the id's and include's.
            let id = ProductID.parse(context)
            let placeholders = IncludeParameter.parse(request)
            guard let id, let placeholders else {
                let errors = (id == nil ? [ProductID.invalidField] : []) + (placeholders == nil ? [IncludeParameter.invalid] : [])
                return responder.fail(GatewayError.invalidFields(errors))
            }
            serve(.detail(id: id, placeholders: placeholders), request: request, context: context, responder: responder)
        })
    }

    /// A fresh page answered from the cache as stored bytes (or declined: the ordinary route
    /// then answers, fetching or revalidating as needed). On the loop thread; allocates
    /// nothing for the common header values.
    private func answerStored(_ kind: Kind, _ request: RequestBytes, _ answer: inout StoredAnswer) -> Bool {
        let locale = locales.resolve(request.header("accept-language"))
        let now = ContinuousClock.now
        let key = Self.key(kind, locale: locale)
        switch cache.lookup(key, now: now) {
        case let (page, freshness)? where freshness == .fresh && page.status == 200:
            answerStored(page, request, now: now, &answer)
            return true
        case let found:
            answer.declined = StoredProbe(kind: kind, locale: locale, key: key, found: found)
            return false
        }
    }

    /// Writes fresh `page` into `answer`.
    private func answerStored(_ page: CachedPage, _ request: RequestBytes, now: ContinuousClock.Instant, _ answer: inout StoredAnswer) {
        metrics.cacheEvent("hit", cache: "page")
        page.prefetch?.used()
        let gzip = page.gzip != nil && AcceptEncoding.allowsGzip(bytes: request.header("accept-encoding"))
        let notModified = request.header("if-none-match").map { page.matches(ifNoneMatch: $0) } ?? false
        let secondsLeft = Self.secondsLeft(page, now)
        page.heads.append(gzip: gzip, notModified: notModified, to: &answer)
        answer.beginField(Self.cacheControlName)
        answer.appendValue(configuration.privateAnswers ? Self.privateCacheControlPrefix : Self.cacheControlPrefix)
        answer.appendValueDecimal(secondsLeft)
        answer.endField()
        answer.beginField(Self.cacheStatusName)
        answer.appendValue(Self.cacheStatusHitPrefix)
        answer.appendValueDecimal(secondsLeft)
        answer.endField()
        answer.status = notModified ? 304 : 200
        answer.fromCache = true
        if !notModified {
            answer.body = gzip ? page.gzip! : page.identity
            answer.gzipOf = gzip ? page.identity.count : nil
        }
    }

    private static let cacheControlName = StoredFieldName("Cache-Control")
    private static let cacheControlPrefix: [UInt8] = Array("public, max-age=".utf8)
    private static let privateCacheControlPrefix: [UInt8] = Array("private, max-age=".utf8)
    private static let cacheStatusName = StoredFieldName("Cache-Status")
    private static let cacheStatusHitPrefix: [UInt8] = Array("\(CacheStatus.name); hit; ttl=".utf8)

    /// What the stored answer worked out for a request before it declined: the parsed
    /// request, its locale and key, and what the cache held then.
    struct StoredProbe: Sendable {
        var kind: Kind
        var locale: ClientLocale
        var key: PageCacheKey
        var found: (page: CachedPage, freshness: PageCache.Freshness)?
    }

    /// Answers `kind` from the cache, or fetches it. With `probe` (the stored answer declined
    /// it a moment ago on this loop), its locale, key and lookup are taken as they are.
    func serve(_ kind: Kind, request: GatewayRequest, context: RouteContext, responder: Responder, probe: StoredProbe? = nil) {
        let locale = probe?.locale ?? configuration.locales.resolve(acceptLanguage: request.headers["Accept-Language"])
        let key = probe?.key ?? Self.key(kind, locale: locale)
        let now = ContinuousClock.now
        let cached = probe == nil ? cache.lookup(key, now: now) : probe!.found
        switch cached?.freshness {
        case .fresh:
            metrics.cacheEvent("hit", cache: "page")
            let page = cached!.page
            page.prefetch?.used()
            responder.send(answer(page, request, locale, status: CacheStatus.hit(ttl: Self.secondsLeft(page, now)), now: now))
            return
        case .stale:
            metrics.cacheEvent("stale", cache: "page")
            let page = cached!.page
            page.prefetch?.used()
            // While the origin recovers the refresh needs one of this process's slots, unless
            // one is running already (this read joins it); the answer says when there was none
            // (with the shared tier, whether a replicas' slot is free is known only after the
            // answer: it says revalidating).
            let capped = capsRefresh(key, now: now) && !coalescer.isRunning(FetchKey(key: key, generation: cache.generation))
            let slot = capped && refreshSlots.take()
            let deferred = capped && !slot
            responder.send(answer(page, request, locale, status: deferred ? CacheStatus.refreshDeferred : CacheStatus.staleWhileRevalidating, now: now))
            if deferred { return metrics.cacheEvent("refresh_deferred", cache: "page") }
            // The refresh is background work: with the request recorded, a trace of its own
            // (root span `background refresh`, linked to the request).
            let background = context.trace?.background()
            var refreshing = request
            if let background { refreshing.trace = background.scope.trace }
            fetch(kind, key: key, locale: locale, request: refreshing, context: context.with(trace: background?.scope), capped: slot) { [self] outcome in
                if slot { refreshSlots.give() }
                background?.end(
                    "background refresh",
                    attributes: [SpanAttribute(SemanticConventions.refreshKind, capped ? "recovery" : "stale_while_revalidate")],
                    failure: outcome.failureType)
            }
            return
        case .expired, .revalidate, nil:
            let event = switch cached?.freshness { case nil: "miss"; case .revalidate?: "revalidate_after_gap"; default: "expired" }
            metrics.cacheEvent(event, cache: "page")
        }
        // An expired page while the origin recovers: refreshed if a slot is free (with the
        // shared tier, one of the replicas' too), else served as it is (a later read
        // refreshes it).
        var slot = false
        if let stored = cached?.page, capsRefresh(key, now: now) {
            guard refreshSlots.take() else {
                metrics.cacheEvent("refresh_deferred", cache: "page")
                return responder.send(answer(stored, request, locale, status: CacheStatus.refreshDeferred, now: now))
            }
            slot = true
        }
        let reply = FetchReply(
            kind: kind, locale: locale, request: request, context: context, responder: responder, stored: cached?.page,
            afterGap: cached?.freshness == .revalidate)
        fetch(kind, key: key, locale: locale, request: request, context: context, capped: slot) { [self, slot] outcome in
            if slot { refreshSlots.give() }
            deliver(outcome, key: key, reply)
        }
    }

    /// What answering a fetched page needs of the request that waited for it.
    struct FetchReply: Sendable {
        var kind: Kind
        var locale: ClientLocale
        var request: GatewayRequest
        var context: RouteContext
        var responder: Responder
        /// The expired page the request found (nil: a miss).
        var stored: CachedPage?
        /// Whether `stored` is being revalidated because this replica lost track of other
        /// replicas' writes (``PageCache/Freshness/revalidate``).
        var afterGap = false
        var fwd: String { stored == nil ? "miss" : "stale" }
        /// What `Cache-Status` says of this cache's part beside `fwd`.
        var detail: String? { afterGap ? "revalidate-after-gap" : nil }
    }

    /// Answers a request that waited for the fetch of `key`, on whichever thread it ended.
    private func deliver(_ outcome: Outcome, key: PageCacheKey, _ reply: FetchReply) {
        let (request, locale, fwd, responder) = (reply.request, reply.locale, reply.fwd, reply.responder)
        let now = ContinuousClock.now
        switch outcome {
        case .page(let page, let hasNextPage, let tier):
            // A client that joined a prefetch's fetch read what it fetched.
            page.prefetch?.used()
            let status: CacheStatusField
            switch tier {
            case .shared: status = CacheStatus.sharedHit(ttl: Self.secondsLeft(page, now), fwd: fwd, detail: reply.detail)
            case .origin(let sharedConsulted):
                status = sharedConsulted ? CacheStatus.storedInBoth(fwd: fwd, detail: reply.detail) : CacheStatus.stored(fwd: fwd, detail: reply.detail)
            }
            responder.send(answer(page, request, locale, status: status, now: now))
            if case .list(let query) = reply.kind, hasNextPage {
                var next = query
                next.page += 1
                prefetch(next, locale: locale, request: request, context: reply.context)
            }
        case .failure(let error, let originStatus, let fallback):
            if let stale = reply.stored ?? fallback, error.status >= 500 {
                metrics.cacheEvent("stale_if_error", cache: "page")
                responder.send(answer(stale, request, locale, status: CacheStatus.staleIfError(status: originStatus), now: now))
            } else {
                responder.fail(error.adding(cacheStatus: CacheStatus.notStored(fwd: fwd, status: originStatus)))
            }
        case .deferred(let fallback):
            if let stored = reply.stored ?? fallback {
                return responder.send(answer(stored, request, locale, status: CacheStatus.refreshDeferred, now: now))
            }
            // A miss that joined a capped refresh (its page was evicted after the refresh
            // began): misses are never deferred, so it leads a fetch of its own.
            fetch(reply.kind, key: key, locale: locale, request: request, context: reply.context) { [self] outcome in
                deliver(outcome, key: key, reply)
            }
        }
    }

    /// `Cache-Control`'s first directive for product answers.
    private var visibility: String { configuration.privateAnswers ? "private" : "public" }

    func answer(_ page: CachedPage, _ request: GatewayRequest, _ locale: ClientLocale, status: CacheStatusField, now: ContinuousClock.Instant)
        -> GatewayResponse
    {
        if page.status == 404 {
            var response = GatewayError.notFound("No product at this address.").response(requestID: request.requestID)
            response.headers.set("Cache-Status", status.value)
            response.cacheOutcome = status.outcome
            response.headers.set("Cache-Control", "\(visibility), max-age=\(Self.secondsLeft(page, now))")
            return response
        }
        return PageResponse.render(
            page, for: request, locale: locale.identifier, cacheStatus: status, maxAge: Self.secondsLeft(page, now), visibility: visibility)
    }

    /// Stores `page` unless an invalidation happened since its fetch began (`generation`):
    /// then it may show the state before a write, and only the requests that waited for it
    /// get it.
    func storeCounting(_ page: CachedPage, _ key: PageCacheKey, generation: Int) {
        var page = page
        if let kind = prefetching.withLock({ $0[key] }) { page.prefetch = PrefetchMark(kind: kind.rawValue, metrics: metrics) }
        guard let evicted = cache.store(page, for: key, ifGeneration: generation) else { return }
        for _ in 0..<evicted { metrics.cacheEvent("eviction", cache: "page") }
    }

    static func key(_ kind: Kind, locale: ClientLocale) -> PageCacheKey {
        switch kind {
        case .list(let query):
            PageCacheKey(
                route: .list, number: Int64(query.page), locale: locale.identifier, pageSize: query.pageSize, search: query.search,
                placeholders: query.includePlaceholders)
        case .detail(let id, let placeholders): PageCacheKey(route: .detail, number: id, locale: locale.identifier, placeholders: placeholders)
        }
    }

    /// Whether refreshing the stored page of `key` must take one of the ``refreshSlots``: the
    /// origin recovers from an outage (its breaker closed lately) or this key failed lately,
    /// and the refresh would reach the origin now (a key still backing off sends nothing).
    func capsRefresh(_ key: PageCacheKey, now: ContinuousClock.Instant) -> Bool {
        let failed = backoff.record(Self.originKey(key))
        guard failed != nil || breaker?.recovering(now: now) == true else { return false }
        return failed.map { now >= $0.until } ?? true
    }

    /// Sends a read to the origin, through the breaker when there is one (which records how it
    /// ended). On `origin`'s loop.
    func send(
        _ request: OriginRequest, via origin: any OriginSending, completion: @escaping (Result<OriginResponse, OriginFailure>) -> Void
    ) {
        guard let breaker else { return origin.send(request, to: endpoint, completion: completion) }
        breaker.send(request, via: origin, to: endpoint, completion: completion)
    }

    /// What the origin is asked for `key`, whatever the locale and placeholders it is served
    /// with: the key its backoff is kept under.
    static func originKey(_ key: PageCacheKey) -> PageCacheKey {
        PageCacheKey(route: key.route, number: key.number, locale: "", pageSize: key.pageSize, search: key.search)
    }

    static func secondsLeft(_ page: CachedPage, _ now: ContinuousClock.Instant) -> Int {
        max(0, Int((page.timeToLive - (now - page.storedAt)).components.seconds))
    }
}

