import BodyCompression
import Dispatch
import GatewayModels
import HTTPInterface
import Observability
import Routing
import Synchronization

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
    }

    /// Where a fetched page came from, for `Cache-Status`.
    enum Tier: Sendable {
        /// The shared tier (Redis) had it fresh.
        case shared
        /// The origin; `sharedConsulted` when the shared tier missed first (and stores it now).
        case origin(sharedConsulted: Bool)
    }

    private enum Kind: Sendable {
        case list(ListQuery)
        case detail(id: Int64)
    }

    private struct FetchKey: Hashable, Sendable {
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
    private let coalescer = RequestCoalescer<FetchKey, Outcome>()
    /// `Accept-Language` values already resolved, for the stored-answer path.
    private let locales: LocaleMemo
    /// v1 origin pages, for assembling contract pages (unused on v2/v2b).
    private let v1Pages: V1OriginPages
    /// Prefetches running now; at most `maxPrefetches`.
    private let prefetches = Atomic<Int>(0)
    static let maxPrefetches = 8
    /// How long a v1 origin page is reused to assemble contract pages.
    static let v1OriginPageMaxAge: Duration = .seconds(10)
    /// The replicas' shared tier; nil without `--redis-url`.
    let shared: SharedPages?
    /// The answer to `q` on an origin that cannot search.
    static let searchUnsupported = GatewayError(status: 501, detail: "Search is not supported by this origin.")

    init(
        endpoint: OriginEndpoint, generation: OriginGeneration, configuration: ReadPathConfiguration, compression: ResponseCompression, metrics: GatewayMetrics,
        imageURL: @escaping ImageURLRewriter = identityImageURL, shared: SharedPages? = nil
    ) {
        self.shared = shared
        self.endpoint = endpoint
        originGeneration = generation
        self.imageURL = imageURL
        self.configuration = configuration
        self.compression = compression
        self.metrics = metrics
        cache = PageCache(configuration: configuration.cache)
        locales = LocaleMemo(configuration.locales)
        v1Pages = V1OriginPages(maxAge: min(configuration.listTimeToLive, Self.v1OriginPageMaxAge))
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
            guard let id = ProductID.parse(id) else { return false }
            return answerStored(.detail(id: id), request, &answer)
        }, .deferred { [self] request, context, responder in
            guard let id = ProductID.parse(context) else { return responder.fail(ProductID.invalid) }
            serve(.detail(id: id), request: request, context: context, responder: responder)
        })
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
        answer.fromCache = true
        if !notModified {
            answer.body = gzip ? page.gzip! : page.identity
            answer.gzipOf = gzip ? page.identity.count : nil
        }
        return true
    }

    private static let cacheControlPrefix: [UInt8] = Array("Cache-Control: public, max-age=".utf8)
    private static let cacheStatusHitPrefix: [UInt8] = Array("\r\nCache-Status: \(CacheStatus.name); hit; ttl=".utf8)
    private static let lineEnd: [UInt8] = Array("\r\n".utf8)

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
            case .page(let page, let hasNextPage, let tier):
                let status: String
                switch tier {
                case .shared: status = CacheStatus.sharedHit(ttl: Self.secondsLeft(page, now), fwd: fwd)
                case .origin(let sharedConsulted): status = sharedConsulted ? CacheStatus.storedInBoth(fwd: fwd) : CacheStatus.stored(fwd: fwd)
                }
                responder.send(answer(page, request, locale, status: status, now: now))
                if case .list(let query) = kind, hasNextPage {
                    var next = query
                    next.page += 1
                    prefetch(next, locale: locale, request: request, context: context)
                }
            case .failure(let error, let originStatus, let fallback):
                if let stale = cached?.page ?? fallback, error.status >= 500 {
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
    /// thread finishes it. The leader asks the shared tier first when there is one (see
    /// ``SharedPages``), then the origin.
    private func fetch(
        _ kind: Kind, key: PageCacheKey, locale: ClientLocale, request: GatewayRequest, context: RouteContext,
        completion: @escaping @Sendable (Outcome) -> Void
    ) {
        let generation = cache.generation
        let fetchKey = FetchKey(key: key, generation: generation)
        guard coalescer.join(fetchKey, waiter: completion) else { return }
        let finish: @Sendable (Outcome) -> Void = { [self] outcome in coalescer.finish(fetchKey, with: outcome) }
        guard let shared, let redis = context.redis else {
            return fetchFromOrigin(kind, key: key, locale: locale, request: request, context: context, generation: generation, completion: finish)
        }
        /// A page of the shared tier: into L1, and to every waiter.
        let fromShared: @Sendable (SharedPageRecord.Entry) -> Void = { [self] entry in
            storeCounting(entry.page, key, generation: generation)
            finish(.page(entry.page, hasNextPage: entry.hasNextPage, tier: .shared))
        }
        let names = shared.names(key)
        shared.lookup(names, redis: redis) { [self] found in
            switch found {
            case .fresh(let entry):
                fromShared(entry)
            case .unavailable:
                fetchFromOrigin(kind, key: key, locale: locale, request: request, context: context, generation: generation, completion: finish)
            case .miss(let version, let stale):
                let fetchAndShare: @Sendable () -> Void = { [self] in
                    fetchFromOrigin(kind, key: key, locale: locale, request: request, context: context, generation: generation) { outcome in
                        switch outcome {
                        case .page(let page, let hasNextPage, _):
                            redis.loop.execute {
                                shared.store(page, hasNextPage: hasNextPage, names: names, version: version, redis: redis)
                                shared.unlock(names, version: version, redis: redis)
                            }
                            finish(.page(page, hasNextPage: hasNextPage, tier: .origin(sharedConsulted: true)))
                        case .failure(let error, let originStatus, _):
                            redis.loop.execute { shared.unlock(names, version: version, redis: redis) }
                            finish(.failure(error, originStatus: originStatus, fallback: stale?.page))
                        }
                    }
                }
                // One replica fetches; the others wait for its entry, then fetch themselves.
                shared.lock(names, version: version, redis: redis) { mine in
                    if mine { return fetchAndShare() }
                    shared.waitForEntry(names, version: version, until: .now + shared.waitBound, redis: redis) { entry in
                        if let entry { fromShared(entry) } else { fetchAndShare() }
                    }
                }
            }
        }
    }

    /// Fetches `key` from the origin, maps it, stores it in L1 (unless an invalidation came
    /// since `generation`); `completion` gets the outcome on whichever thread finishes.
    private func fetchFromOrigin(
        _ kind: Kind, key: PageCacheKey, locale: ClientLocale, request: GatewayRequest, context: RouteContext, generation: Int,
        completion: @escaping @Sendable (Outcome) -> Void
    ) {
        guard let origin = context.origin else {
            completion(.failure(.serviceUnavailable("No origin is configured."), originStatus: nil, fallback: nil))
            return
        }
        let target: String
        switch kind {
        case .list(let query) where originGeneration == .v1:
            let pages = OriginGeneration.v1OriginPages(for: query)
            // The last page is read only for the item after this page's last when the page
            // ends where an origin page ends.
            let readAheadOnly = (query.firstIndex + query.pageSize) % OriginGeneration.v1PageSize == 0
            fetchV1Pages(
                pages, readAheadOnly: readAheadOnly, origin: origin, request: request, context: context, pagesGeneration: v1Pages.generation
            ) { [self] result in
                switch result {
                case .success(let fetched):
                    DispatchQueue.global().async { [self] in
                        completion(store(.v1(fetched), kind: kind, key: key, locale: locale, context: context, generation: generation))
                    }
                case .failure(let failure):
                    completion(.failure(failure.error, originStatus: failure.originStatus, fallback: nil))
                }
            }
            return
        case .list(let query): target = originGeneration.listTarget(query)
        case .detail(let id): target = originGeneration.detailTarget(id: id)
        }
        let originRequest = OriginRequest(method: .get, target: target, requestID: request.requestID, trace: request.trace)
        origin.send(originRequest, to: endpoint) { [self] result in
            switch result {
            case .success(let response) where response.status == 200:
                // Mapping and compression are CPU work: off the loop.
                DispatchQueue.global().async { [self] in
                    completion(store(.body(response.body), kind: kind, key: key, locale: locale, context: context, generation: generation))
                }
            case .success(let response) where response.status == 404:
                let page = CachedPage(
                    status: 404, contentType: "application/problem+json", identity: [], gzip: nil, storedAt: .now,
                    timeToLive: configuration.notFoundTimeToLive)
                storeCounting(page, key, generation: generation)
                completion(.page(page, hasNextPage: false, tier: .origin(sharedConsulted: false)))
            case .success(let response):
                let failure = Self.failure(originStatus: response.status)
                completion(.failure(failure.error, originStatus: failure.originStatus, fallback: nil))
            case .failure(let failure):
                completion(.failure(failure.gatewayError, originStatus: nil, fallback: nil))
            }
        }
    }

    /// What an origin status other than 200 (and, for single reads, 404) means for a read.
    private static func failure(originStatus status: Int) -> FetchFailure {
        let error: GatewayError = status >= 500
            ? .badGateway("The origin answered \(status).")
            : .badGateway("The origin refused the request with \(status).")
        return FetchFailure(error: error, originStatus: status)
    }

    /// Fetches v1 origin pages `pages` and joins them as ``assembleV1Pages(_:readAheadOnly:)``
    /// says. Two pages (a contract page of the usual size and its read-ahead page) are asked
    /// at once: one origin round trip, not two. Of more, the first is asked alone and, when it
    /// came back full, all the rest at once. Pages ``V1OriginPages`` holds are taken from it,
    /// and none is asked past one it holds that is not full, so past the end of the list no
    /// page is asked that a reader in order would not ask. A v1 origin 404 on a list page
    /// counts as an empty page, and is held like one. Called on the loop that owns `origin`;
    /// decoding runs off the loop, and each outcome is delivered on that loop again, where
    /// `completion` runs once.
    private func fetchV1Pages(
        _ pages: ClosedRange<Int>, readAheadOnly: Bool, origin: any OriginSending, request: GatewayRequest, context: RouteContext,
        pagesGeneration: Int, completion: @escaping @Sendable (Result<V1Fetch, FetchFailure>) -> Void
    ) {
        let now = ContinuousClock.now
        var held: [Int: V1OriginPages.Entry] = [:]
        var last = pages.upperBound
        for number in pages {
            guard let entry = v1Pages.lookup(number, now: now) else { continue }
            held[number] = entry
            if entry.page.items.count < OriginGeneration.v1PageSize {
                last = number
                break
            }
        }
        // A held page that is not full ends the list: the read-ahead page is then not needed.
        let wave = V1Wave(
            needed: pages.lowerBound...last, held: held, readAheadOnly: readAheadOnly && last == pages.upperBound, origin: origin,
            request: request, context: context, pagesGeneration: pagesGeneration, completion: completion)
        fetchV1Wave(wave, collected: [])
    }

    /// What the waves of one v1 contract page share.
    private struct V1Wave: Sendable {
        /// The origin pages the contract page needs, in order.
        var needed: ClosedRange<Int>
        var held: [Int: V1OriginPages.Entry]
        /// Whether the last needed page is read only for the item after the contract page.
        var readAheadOnly: Bool
        var origin: any OriginSending
        var request: GatewayRequest
        var context: RouteContext
        /// The v1 page store's generation when the fetch began.
        var pagesGeneration: Int
        var completion: @Sendable (Result<V1Fetch, FetchFailure>) -> Void
    }

    /// Asks the next wave of `wave.needed` after the `collected` outcomes (both of two pages;
    /// of more, the first, then all the rest), and once every answer of it is in, either
    /// finishes or asks the next. On the origin's loop.
    private func fetchV1Wave(_ wave: V1Wave, collected: [V1PageOutcome]) {
        let first = wave.needed.lowerBound + collected.count
        let last = collected.isEmpty && wave.needed.count > 2 ? first : wave.needed.upperBound
        let pages = first...last
        let outcomes = Locked<[V1PageOutcome?]>(Array(repeating: nil, count: pages.count))
        let deliver: @Sendable (Int, V1PageOutcome) -> Void = { [self] index, outcome in
            let all: [V1PageOutcome]? = outcomes.withLock { outcomes in
                outcomes[index] = outcome
                let done = outcomes.compactMap { $0 }
                return done.count == outcomes.count ? done : nil
            }
            guard let all else { return }
            let joined = collected + all
            // A page that failed or is not full ends the reading, as it would in order.
            let ended = all.contains { outcome in
                guard case .success(let entry) = outcome else { return true }
                return entry.page.items.count < OriginGeneration.v1PageSize
            }
            if ended || last == wave.needed.upperBound {
                // The read-ahead exception holds only when the last outcome is that page's.
                wave.completion(Self.assembleV1Pages(joined, readAheadOnly: wave.readAheadOnly && last == wave.needed.upperBound))
            } else {
                fetchV1Wave(wave, collected: joined)
            }
        }
        for (index, number) in pages.enumerated() {
            if let entry = wave.held[number] {
                deliver(index, .success(entry))
                continue
            }
            fetchV1Page(number, wave: wave) { outcome in deliver(index, outcome) }
        }
    }

    /// One v1 origin page: asked, decoded off the loop, stored, and `deliver`ed on the loop.
    private func fetchV1Page(_ number: Int, wave: V1Wave, deliver: @escaping @Sendable (V1PageOutcome) -> Void) {
        let origin = wave.origin
        let originRequest = OriginRequest(
            method: .get, target: OriginGeneration.v1ListTarget(page: number), requestID: wave.request.requestID, trace: wave.request.trace)
        let sentAt = ContinuousClock.now
        origin.send(originRequest, to: endpoint) { [self] result in
            switch result {
            case .success(let response) where response.status == 200:
                DispatchQueue.global().async { [self] in
                    do throws(OriginResponseError) {
                        let entry = V1OriginPages.Entry(page: try OriginGeneration.v1Page(bytes: response.body), storedAt: sentAt)
                        v1Pages.store(entry, number: number, ifGeneration: wave.pagesGeneration)
                        origin.loop.execute { deliver(.success(entry)) }
                    } catch {
                        wave.context.logger.warning("origin response not readable", metadata: ["reason": "\(error.reason)"])
                        let failure = FetchFailure(error: .badGateway("The origin's response could not be read."), originStatus: 200)
                        origin.loop.execute { deliver(.failure(failure)) }
                    }
                }
            case .success(let response) where response.status == 404:
                // Past the end: held like any page, so the next contract page's read (often a
                // prefetch that follows at once) does not ask again.
                let entry = V1OriginPages.Entry(page: V1ItemsPage(page: number, items: []), storedAt: sentAt)
                v1Pages.store(entry, number: number, ifGeneration: wave.pagesGeneration)
                deliver(.success(entry))
            case .success(let response):
                deliver(.failure(Self.failure(originStatus: response.status)))
            case .failure(let failure):
                deliver(.failure(FetchFailure(error: failure.gatewayError, originStatus: nil)))
            }
        }
    }

    /// What a fetch brought back: one origin body, or (v1 lists) decoded origin pages.
    private enum Fetched {
        case body([UInt8])
        case v1(V1Fetch)
    }

    /// Maps what was fetched to contract bytes, gzips them, stores the page. Off the loop.
    private func store(
        _ fetched: Fetched, kind: Kind, key: PageCacheKey, locale: ClientLocale, context: RouteContext, generation: Int
    ) -> Outcome {
        let identity: [UInt8]
        var timeToLive: Duration
        var hasNextPage = false
        var storedAt = ContinuousClock.now
        do {
            switch (kind, fetched) {
            case (.list(let query), .v1(let v1)):
                var contract = try OriginGeneration.mapV1Pages(v1.pages, query: query, locale: locale, imageURL: imageURL)
                timeToLive = configuration.listTimeToLive
                storedAt = v1.oldest
                if v1.readAheadFailed {
                    // The page before was full: say a next page exists, and look again soon.
                    contract.hasNextPage = true
                    timeToLive = min(timeToLive, configuration.notFoundTimeToLive)
                }
                hasNextPage = contract.hasNextPage
                identity = contract.jsonBytes()
            case (.list(let query), .body(let body)):
                let contract = try originGeneration.mapPage(bytes: body, page: query.page, locale: locale, imageURL: imageURL)
                hasNextPage = contract.hasNextPage
                identity = contract.jsonBytes()
                timeToLive = configuration.listTimeToLive
            case (.detail, .body(let body)):
                identity = try originGeneration.detailJSON(bytes: body, locale: locale, imageURL: imageURL)
                timeToLive = configuration.detailTimeToLive
            case (.detail, .v1):
                preconditionFailure("details are one origin request")
            }
        } catch {
            context.logger.warning("origin response not readable", metadata: ["reason": "\(error.reason)"])
            return .failure(.badGateway("The origin's response could not be read."), originStatus: 200, fallback: nil)
        }
        let gzip = identity.count >= compression.minimumBytes ? Gzip.compress(identity, level: compression.level) : nil
        let page = CachedPage(
            status: 200, contentType: "application/json", identity: identity, gzip: gzip, storedAt: storedAt, timeToLive: timeToLive,
            fields: [("Vary", PageResponse.vary), ("Content-Language", locale.identifier)])
        storeCounting(page, key, generation: generation)
        return .page(page, hasNextPage: hasNextPage, tier: .origin(sharedConsulted: false))
    }

    /// Fetches list page `query` in the background after a miss on the page before it, so
    /// the next scroll is a hit. Bounded; skipped when cached or already running.
    private func prefetch(_ query: ListQuery, locale: ClientLocale, request: GatewayRequest, context: RouteContext) {
        guard query.page <= ListQuery.maxPage, let origin = context.origin else { return }
        let key = Self.key(.list(query), locale: locale)
        guard cache.lookup(key, now: .now) == nil else { return }
        guard prefetches.add(1, ordering: .relaxed).newValue <= Self.maxPrefetches else {
            prefetches.subtract(1, ordering: .relaxed)
            return
        }
        metrics.cacheEvent("prefetch", cache: "page")
        origin.loop.execute { [self] in
            fetch(.list(query), key: key, locale: locale, request: request, context: context) { [self] _ in
                prefetches.subtract(1, ordering: .relaxed)
            }
        }
    }

    /// Drops what a write to product `id` (nil: a new product) may have made untrue: its
    /// details in every locale, every list page, and the v1 origin pages. Fetches that began
    /// before store nothing, and later requests do not join them.
    public func invalidate(productID id: Int64?) {
        cache.remove { key in key.route == .list || (key.route == .detail && key.number == id) }
        v1Pages.removeAll()
    }

    /// ``invalidate(productID:)``, and with the shared tier, for every replica: the versions
    /// of the lists and of the product move on in Redis and every replica is told. `done`
    /// runs once Redis has done it or could not (then it is tried again in the background for
    /// as long as a page may stay fresh). On the request's loop.
    func invalidate(productID id: Int64?, context: RouteContext, then done: @escaping @Sendable () -> Void) {
        invalidate(productID: id)
        guard let shared, let redis = context.redis else { return done() }
        let retryUntil = ContinuousClock.now + max(configuration.listTimeToLive, configuration.detailTimeToLive) + .seconds(5)
        shared.invalidate(productID: id, redis: redis, retryingUntil: retryUntil) { done() }
    }

    /// Stores `page` unless an invalidation happened since its fetch began (`generation`):
    /// then it may show the state before a write, and only the requests that waited for it
    /// get it.
    private func storeCounting(_ page: CachedPage, _ key: PageCacheKey, generation: Int) {
        guard let evicted = cache.store(page, for: key, ifGeneration: generation) else { return }
        for _ in 0..<evicted { metrics.cacheEvent("eviction", cache: "page") }
    }

    private static func key(_ kind: Kind, locale: ClientLocale) -> PageCacheKey {
        switch kind {
        case .list(let query):
            PageCacheKey(route: .list, number: Int64(query.page), locale: locale.identifier, pageSize: query.pageSize, search: query.search)
        case .detail(let id): PageCacheKey(route: .detail, number: id, locale: locale.identifier)
        }
    }

    private static func secondsLeft(_ page: CachedPage, _ now: ContinuousClock.Instant) -> Int {
        max(0, Int((page.timeToLive - (now - page.storedAt)).components.seconds))
    }
}

extension ProductReads {
    /// Drops this process's pages that `scope` names (the details of the products and every
    /// list page, or every page); returns how many. Any thread.
    func purge(_ scope: PurgeScope) -> Int {
        v1Pages.removeAll()
        switch scope {
        case .products(let ids):
            return cache.remove { key in key.route == .list || (key.route == .detail && ids.contains(key.number)) }
        case .pages, .all:
            return cache.remove { _ in true }
        }
    }

    /// Lost: writes may go unheard, so every L1 page goes, and new ones stay fresh only
    /// briefly. Back: what was cached meanwhile goes too, and pages keep their times again.
    func replicaLink(up: Bool) {
        cache.setFreshnessCap(up ? nil : Self.unlinkedFreshness)
        cache.remove { _ in true }
        v1Pages.removeAll()
    }
}
