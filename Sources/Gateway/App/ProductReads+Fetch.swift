import BodyCompression
import Dispatch
import GatewayModels
import HTTPInterface
import Observability
import Routing
import GatewaySupport
import Tracing

/// The miss path: one fetch per key (shared tier first with `--redis-url`, then the origin),
/// the mapping of what came back, and prefetches.
extension ProductReads {
    /// Joins (or leads) the fetch for `key`; `completion` gets the outcome on whichever
    /// thread finishes it. The leader asks the shared tier first when there is one (see
    /// ``SharedPages``), then the origin. `capped`: a refresh that took one of this process's
    /// ``refreshSlots``; with the shared tier it needs one of the replicas' too, and ends
    /// `.deferred` without. Only the leader's `capped` counts: a caller that joins a running
    /// fetch gets its outcome, `.deferred` included.
    func fetch(
        _ kind: Kind, key: PageCacheKey, locale: ClientLocale, request: GatewayRequest, context: RouteContext, capped: Bool = false,
        completion: @escaping @Sendable (Outcome) -> Void
    ) {
        let generation = cache.generation
        let fetchKey = FetchKey(key: key, generation: generation)
        guard coalescer.join(fetchKey, scope: context.trace, waiter: completion) else { return }
        let finish: @Sendable (Outcome) -> Void = { [self] outcome in coalescer.finish(fetchKey, with: outcome) }
        guard let shared, let redis = context.redis else {
            return fetchFromOrigin(kind, key: key, locale: locale, request: request, context: context, generation: generation, completion: finish)
        }
        SharedTierFetch(
            reads: self, shared: shared, redis: redis, names: shared.names(key), kind: kind, key: key, locale: locale, request: request,
            context: context, generation: generation, capped: capped, finish: finish
        ).start()
    }

    /// Fetches `key` from the origin, maps it, stores it in L1 (unless an invalidation came
    /// since `generation`); `completion` gets the outcome on whichever thread finishes.
    ///
    /// While the key backs off after a failure (``FetchBackoff``), or the origin's breaker is
    /// open (``CircuitBreaker``), nothing is sent: the outcome is that failure again, or 503,
    /// at once, with `Retry-After`. A failure (5xx, time-out, connection
    /// error, unreadable answer) starts or lengthens the backoff; a page or a 404 ends it.
    func fetchFromOrigin(
        _ kind: Kind, key: PageCacheKey, locale: ClientLocale, request: GatewayRequest, context: RouteContext, generation: Int,
        completion: @escaping @Sendable (Outcome) -> Void
    ) {
        guard let origin = context.origin else {
            completion(.failure(.serviceUnavailable("No origin is configured."), originStatus: nil, fallback: nil))
            return
        }
        let originKey = Self.originKey(key)
        let now = ContinuousClock.now
        if let held = backoff.blocked(originKey, now: now) {
            metrics.originBackoff("held")
            completion(.failure(held.error.retryingAfter(held.until - now), originStatus: held.originStatus, fallback: nil))
            return
        }
        // The origin's breaker open: nothing is sent, and the key does not back off for it.
        if let breaker, case .refused(let retryAfter) = breaker.admit(now: now) {
            metrics.originBreakerRefused("read")
            completion(.failure(breaker.refusal(retryAfter: retryAfter), originStatus: nil, fallback: nil))
            return
        }
        let completion: @Sendable (Outcome) -> Void = { [self] outcome in
            switch outcome {
            case .page: backoff.succeeded(originKey)
            case .failure(let error, let originStatus, _) where Self.startsBackoff(error: error, originStatus: originStatus):
                backoff.failed(originKey, error: error, originStatus: originStatus, now: .now)
                metrics.originBackoff("started")
            case .failure, .deferred: break
            }
            completion(outcome)
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
                        storeAfterPlaceholders(
                            .v1(fetched), kind: kind, key: key, locale: locale, request: request, context: context, generation: generation,
                            completion: completion)
                    }
                case .failure(let failure):
                    if failure.originStatus.map({ $0 >= 500 }) ?? true { lane.originFailed() }
                    completion(.failure(failure.error, originStatus: failure.originStatus, fallback: nil))
                }
            }
            return
        case .list(let query): target = originGeneration.listTarget(query)
        case .detail(let id, _): target = originGeneration.detailTarget(id: id)
        }
        let originRequest = OriginRequest(method: .get, target: target, requestID: request.requestID, trace: request.trace)
        send(originRequest, via: origin) { [self] result in
            switch result {
            case .success(let response) where response.status == 200:
                // Mapping and compression are CPU work: off the loop.
                DispatchQueue.global().async { [self] in
                    storeAfterPlaceholders(
                        .body(response.body), kind: kind, key: key, locale: locale, request: request, context: context, generation: generation,
                        completion: completion)
                }
            case .success(let response) where response.status == 404:
                let page = CachedPage(
                    status: 404, contentType: "application/problem+json", identity: [], gzip: nil, storedAt: .now,
                    timeToLive: configuration.notFoundTimeToLive)
                storeCounting(page, key, generation: generation)
                completion(.page(page, hasNextPage: false, tier: .origin(sharedConsulted: false)))
            case .success(let response):
                if response.status >= 500 { lane.originFailed() }
                let failure = Self.failure(originStatus: response.status)
                completion(.failure(failure.error, originStatus: failure.originStatus, fallback: nil))
            case .failure(let failure):
                lane.originFailed()
                completion(.failure(failure.gatewayError, originStatus: nil, fallback: nil))
            }
        }
    }

    /// Whether a failed fetch says the origin is failing (and its key should back off): a 5xx,
    /// no answer (time-out, connection error), or an answer that could not be read. Refusals
    /// (4xx other than 404) are answers about the request, not the origin's health.
    static func startsBackoff(error: GatewayError, originStatus: Int?) -> Bool {
        guard error.status >= 500 else { return false }
        guard let originStatus else { return true }
        return originStatus >= 500 || originStatus == 200
    }

    /// What an origin status other than 200 (and, for single reads, 404) means for a read.
    static func failure(originStatus status: Int) -> FetchFailure {
        let error: GatewayError = status >= 500
            ? .badGateway("The origin answered \(status).")
            : .badGateway("The origin refused the request with \(status).")
        return FetchFailure(error: error, originStatus: status)
    }

    /// What a fetch brought back: one origin body, or (v1 lists) decoded origin pages.
    enum Fetched {
        case body([UInt8])
        case v1(V1Fetch)
    }

    /// ``store(_:kind:key:locale:context:generation:)``, after waiting up to `--placeholder-wait`
    /// for the placeholders being computed when the request asks for them and some are not
    /// known yet: the answer then carries those that came in time. Off the loop; `completion`
    /// runs once, on a global queue.
    func storeAfterPlaceholders(
        _ fetched: Fetched, kind: Kind, key: PageCacheKey, locale: ClientLocale, request: GatewayRequest, context: RouteContext, generation: Int,
        completion: @escaping @Sendable (Outcome) -> Void
    ) {
        let store: @Sendable () -> Void = { [self] in
            completion(self.store(fetched, kind: kind, key: key, locale: locale, request: request, context: context, generation: generation))
        }
        // A detail fetched before the tap is JSON only: its images are not fetched for it.
        guard kind.includesPlaceholders, images != nil, configuration.placeholderWait > .zero, !jsonOnly(key) else {
            return store()
        }
        // Counted from here (the origin's answer is in), not from when the wait is armed: the
        // answer is at most the wait (and one more mapping) later than without placeholders.
        let deadline = DispatchTime.now() + .milliseconds(Int(configuration.placeholderWait / .milliseconds(1)))
        // The wait ends on an image worker, the disk queue or a timer: the mapping and gzip
        // go to a global queue, holding neither the worker nor the disk queue.
        let scope = context.trace
        let waitStarted = ContinuousClock.now
        let asked = Locked(0)
        let finish: @Sendable () -> Void = {
            scope?.recordInternal(
                "placeholder wait", elapsed: .now - waitStarted,
                attributes: [SpanAttribute(SemanticConventions.placeholdersAsked, asked.withLock { $0 })])
            DispatchQueue.global().async(execute: store)
        }
        // Mapped once to learn which placeholders are unknown; stored as it is when none is.
        let probe = PlaceholderCollection(images: images)
        guard let mapped = try? contract(fetched, kind: kind, locale: locale, placeholders: probe.lookup) else { return store() }
        guard probe.hasUnknown else {
            return completion(
                self.store(mapped, kind: kind, placeholders: probe, key: key, locale: locale, request: request, context: context, generation: generation))
        }
        metrics.placeholders("waited")
        let wait = PlaceholderWait(then: finish)
        let started = probe.prepareMissing(origin: context.origin, redis: context.redis, requestID: context.requestID, scope: scope) { _ in
            wait.oneDone()
        }
        asked.withLock { $0 = started }
        wait.arm(expecting: started)
        DispatchQueue.global().asyncAfter(deadline: deadline) { wait.expire() }
    }

    /// Maps what was fetched to contract bytes, gzips them, stores the page. Off the loop.
    func store(
        _ fetched: Fetched, kind: Kind, key: PageCacheKey, locale: ClientLocale, request: GatewayRequest, context: RouteContext, generation: Int
    ) -> Outcome {
        let placeholders = kind.includesPlaceholders ? PlaceholderCollection(images: images) : nil
        let mapped: Mapped
        do {
            mapped = try contract(fetched, kind: kind, locale: locale, placeholders: placeholders?.lookup)
        } catch {
            context.logger.warning("origin response not readable", metadata: ["reason": "\(error.reason)"])
            lane.originFailed()
            return .failure(.badGateway("The origin's response could not be read."), originStatus: 200, fallback: nil)
        }
        return store(mapped, kind: kind, placeholders: placeholders, key: key, locale: locale, request: request, context: context, generation: generation)
    }

    /// Stores a mapped page: gzipped, fresh for its time to live, or briefly when placeholders
    /// it carries (`placeholders`, when the request asks for them) are unknown yet, whose
    /// preparation then starts. Then fetches ahead what the page's reader will ask for next
    /// (``fetchAhead(_:kind:locale:request:context:)``).
    func store(
        _ mapped: Mapped, kind: Kind, placeholders: PlaceholderCollection?, key: PageCacheKey, locale: ClientLocale, request: GatewayRequest,
        context: RouteContext, generation: Int
    ) -> Outcome {
        let (identity, hasNextPage, storedAt) = (mapped.identity, mapped.hasNextPage, mapped.storedAt)
        var timeToLive = mapped.timeToLive
        let incomplete = placeholders?.hasUnknown ?? false
        if let placeholders {
            metrics.placeholders("ready", count: placeholders.ready)
            metrics.placeholders("missing", count: placeholders.missing)
        }
        if let placeholders, incomplete {
            if !jsonOnly(key) {
                placeholders.prepareMissing(origin: context.origin, redis: context.redis, requestID: context.requestID)
            }
            // Some are being computed: the next read a moment later carries them.
            timeToLive = min(timeToLive, configuration.incompletePlaceholdersTimeToLive)
        }
        defer { fetchAhead(mapped, kind: kind, locale: locale, request: request, context: context) }
        let gzip = identity.count >= compression.minimumBytes ? Gzip.compress(identity, level: compression.level) : nil
        var page = CachedPage(
            status: 200, contentType: "application/json", identity: identity, gzip: gzip, storedAt: storedAt, timeToLive: timeToLive,
            fields: [("Vary", PageResponse.vary), ("Content-Language", locale.identifier)])
        page.revalidatesInBackground = !incomplete
        storeCounting(page, key, generation: generation)
        return .page(page, hasNextPage: hasNextPage, tier: .origin(sharedConsulted: false))
    }

    /// What a fetch maps to: the contract bytes, how long they are fresh, whether a next page
    /// exists, and how old they are.
    struct Mapped {
        var identity: [UInt8]
        var timeToLive: Duration
        var hasNextPage: Bool
        var storedAt: ContinuousClock.Instant
        /// A list page's thumbnails (the origin's URLs: every item's first, then every
        /// second, …, as ``byPosition(_:_:)`` orders them) and products' ids, for fetching
        /// ahead; empty for a detail.
        var thumbnailSources: [String] = []
        var productIDs: [Int64] = []
    }

    /// Maps what was fetched to contract bytes, with `placeholders` when the request asks.
    /// - Throws: ``OriginResponseError`` when the origin's body is not its generation's shape.
    func contract(_ fetched: Fetched, kind: Kind, locale: ClientLocale, placeholders: ImagePlaceholderLookup?) throws(OriginResponseError)
        -> Mapped
    {
        // A list's thumbnails: each rewritten URL's origin URL, for fetching ahead.
        let thumbnails = Locked<[String: String]>([:])
        let recording: ImageURLRewriter = { [imageURL] url in
            let rewritten = imageURL(url)
            thumbnails.withLock { $0[rewritten] = url }
            return rewritten
        }
        switch (kind, fetched) {
        case (.list(let query), .v1(let v1)):
            var contract = try OriginGeneration.mapV1Pages(
                v1.pages, query: query, locale: locale, imageURL: recording, placeholders: placeholders)
            var timeToLive = configuration.listTimeToLive
            if v1.readAheadFailed {
                // The page before was full: say a next page exists, and look again soon.
                contract.hasNextPage = true
                timeToLive = min(timeToLive, configuration.notFoundTimeToLive)
            }
            return Mapped(
                identity: contract.jsonBytes(), timeToLive: timeToLive, hasNextPage: contract.hasNextPage, storedAt: v1.oldest,
                thumbnailSources: Self.byPosition(contract, thumbnails.withLock { $0 }), productIDs: contract.items.map(\.id))
        case (.list(let query), .body(let body)):
            let contract = try originGeneration.mapPage(
                bytes: body, page: query.page, locale: locale, imageURL: recording, placeholders: placeholders)
            return Mapped(
                identity: contract.jsonBytes(), timeToLive: configuration.listTimeToLive, hasNextPage: contract.hasNextPage, storedAt: .now,
                thumbnailSources: Self.byPosition(contract, thumbnails.withLock { $0 }), productIDs: contract.items.map(\.id))
        case (.detail, .body(let body)):
            let identity = try originGeneration.detailJSON(bytes: body, locale: locale, imageURL: imageURL, placeholders: placeholders)
            return Mapped(identity: identity, timeToLive: configuration.detailTimeToLive, hasNextPage: false, storedAt: .now)
        case (.detail, .v1):
            preconditionFailure("details are one origin request")
        }
    }

    /// Whether `key` is being fetched as a detail before the tap (`--prefetch-details`): JSON
    /// only, so none of its images' placeholders is prepared for it (those not known yet stay
    /// null, and the page is fresh at most 5 s, as any page answered with some pending).
    func jsonOnly(_ key: PageCacheKey) -> Bool {
        prefetching.withLock { $0[key] } == .detail
    }

    /// The origin URLs of `page`'s thumbnails (`origins`: rewritten URL to origin URL), every
    /// item's first before any item's second: the first is what a list cell shows and what
    /// the app asks for, so it is fetched ahead first.
    static func byPosition(_ page: ProductPage, _ origins: [String: String]) -> [String] {
        var ordered: [String] = []
        let longest = page.items.map(\.thumbnails.count).max() ?? 0
        for position in 0..<longest {
            for item in page.items where position < item.thumbnails.count {
                if let url = origins[item.thumbnails[position]] { ordered.append(url) }
            }
        }
        return ordered
    }

    /// Fetches list page `query` in the background after a miss on the page before it, so
    /// the next scroll is a hit.
    func prefetch(_ query: ListQuery, locale: ClientLocale, request: GatewayRequest, context: RouteContext) {
        guard query.page <= ListQuery.maxPage else { return }
        prefetch(.list(query), as: .page, locale: locale, request: request, context: context)
    }

    /// Fetches `kind` in the prefetch lane (bounded; skipped when cached, or while the origin
    /// fails); the page it stores carries a ``PrefetchMark`` counting whether a client reads it.
    func prefetch(_ kind: Kind, as laneKind: PrefetchLane.Kind, locale: ClientLocale, request: GatewayRequest, context: RouteContext) {
        guard let origin = context.origin else { return }
        let key = Self.key(kind, locale: locale)
        guard cache.lookup(key, now: .now) == nil else { return }
        // Background work: with the request recorded, a trace of its own (root span
        // `prefetch`, linked to the request), in which the wait for the lane is a span too.
        let background = context.trace?.background()
        var fetching = request
        if let background { fetching.trace = background.scope.trace }
        let submitted = ContinuousClock.now
        let refused = lane.submit(laneKind) { [self, fetching] done in
            background?.scope.recordInternal("prefetch lane wait", elapsed: .now - submitted)
            // Its turn may come after a client fetched it.
            guard cache.lookup(key, now: .now) == nil else {
                background?.end("prefetch", attributes: [SpanAttribute(SemanticConventions.prefetchKind, laneKind.rawValue)], failure: "cached")
                return done()
            }
            prefetching.withLock { $0[key] = laneKind }
            origin.loop.execute { [self] in
                fetch(kind, key: key, locale: locale, request: fetching, context: context.with(trace: background?.scope)) { [self] outcome in
                    prefetching.withLock { _ = $0.removeValue(forKey: key) }
                    background?.end(
                        "prefetch", attributes: [SpanAttribute(SemanticConventions.prefetchKind, laneKind.rawValue)], failure: outcome.failureType)
                    done()
                }
            }
        }
        if refused == nil, laneKind == .page { metrics.cacheEvent("prefetch", cache: "page") }
    }

    /// After a list page came from the origin (no `q`, at most page ``fetchAheadMaxPage``):
    /// its thumbnails' placeholders are prepared (their sources fetched and kept on disk, so
    /// the app's thumbnail requests a round trip later render without an origin fetch) and
    /// the first `--prefetch-details` products' details fetched, in the list's locale and
    /// `include`, JSON only. All in the prefetch lane; each URL and key once.
    func fetchAhead(_ mapped: Mapped, kind: Kind, locale: ClientLocale, request: GatewayRequest, context: RouteContext) {
        guard case .list(let query) = kind, query.search == nil, query.page <= Self.fetchAheadMaxPage else { return }
        if let images {
            var seen = Set<String>()
            let urls = mapped.thumbnailSources.filter { seen.insert($0).inserted && images.placeholder(for: $0) == .unknown }
            // One background trace for the page's placeholders (root span `prefetch`, kind
            // `image`), ended when the last is ready or failed.
            let background = urls.isEmpty ? nil : context.trace?.background()
            let left = Locked(urls.count)
            for url in urls {
                images.preparePlaceholder(url, origin: context.origin, redis: context.redis, requestID: context.requestID, scope: background?.scope) { _ in
                    guard let background, left.withLock({ left -> Bool in
                        left -= 1
                        return left == 0
                    }) else { return }
                    background.end(
                        "prefetch",
                        attributes: [
                            SpanAttribute(SemanticConventions.prefetchKind, PrefetchLane.Kind.image.rawValue),
                            SpanAttribute(SemanticConventions.placeholdersAsked, urls.count),
                        ])
                }
            }
        }
        for id in mapped.productIDs.prefix(configuration.prefetchDetails) {
            prefetch(.detail(id: id, placeholders: query.includePlaceholders), as: .detail, locale: locale, request: request, context: context)
        }
    }

    /// The last list page whose origin fetch fetches ahead (deeper pages are rarely scrolled
    /// to, and a crawler walking them must not multiply its load on the origin).
    static let fetchAheadMaxPage = 5
}
