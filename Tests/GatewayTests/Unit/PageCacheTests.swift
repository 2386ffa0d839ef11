import Testing
@testable import Gateway

@Suite struct PageCacheTests {
    private let start = ContinuousClock.now
    private let key = PageCacheKey(route: .list, number: 1, locale: "ko-KR")

    private func page(_ text: String = "{\"page\":1}", ttl: Duration = .seconds(30), at offset: Duration = .zero) -> CachedPage {
        CachedPage(
            status: 200, contentType: "application/json", identity: Array(text.utf8), gzip: nil, storedAt: start + offset,
            timeToLive: ttl)
    }

    @Test func freshnessFollowsTheWindows() {
        let cache = PageCache(configuration: .init(byteBudget: 1 << 20, staleWhileRevalidate: .seconds(10), staleIfError: .seconds(100)))
        cache.store(page(), for: key)
        #expect(cache.lookup(key, now: start + .seconds(29))?.freshness == .fresh)
        #expect(cache.lookup(key, now: start + .seconds(30))?.freshness == .stale)
        #expect(cache.lookup(key, now: start + .seconds(39))?.freshness == .stale)
        #expect(cache.lookup(key, now: start + .seconds(40))?.freshness == .expired)
        #expect(cache.lookup(key, now: start + .seconds(129))?.freshness == .expired)
        #expect(cache.lookup(key, now: start + .seconds(130)) == nil)
        #expect(cache.count == 0)
    }

    @Test func keysDifferByRouteParametersAndLocale() {
        let cache = PageCache(configuration: .init())
        cache.store(page("ko"), for: key)
        cache.store(page("en"), for: PageCacheKey(route: .list, number: 1, locale: "en-US"))
        #expect(cache.lookup(key, now: start)?.page.identity == Array("ko".utf8))
        #expect(cache.lookup(PageCacheKey(route: .list, number: 2, locale: "ko-KR"), now: start) == nil)
        #expect(cache.lookup(PageCacheKey(route: .detail, number: 1, locale: "ko-KR"), now: start) == nil)
        #expect(cache.remove { $0.route == .list } == 2)
    }

    @Test func theByteBudgetHoldsAndEvictionsAreCounted() {
        // Each entry costs its body, its stored heads and 256 bytes of bookkeeping.
        let cost = page(String(repeating: "x", count: 1000)).cost
        #expect(cost == 1000 + page().heads.byteCount + 256)
        let cache = PageCache(configuration: .init(byteBudget: 10 * cost))
        var evicted = 0
        for page in 1...25 {
            evicted += cache.store(
                self.page(String(repeating: "x", count: 1000)), for: PageCacheKey(route: .list, number: Int64(page), locale: "ko-KR")) ?? -100
        }
        #expect(cache.count == 10)
        #expect(evicted == 15)
        #expect(cache.bytes == 10 * cost)
        #expect(cache.lookup(PageCacheKey(route: .list, number: 25, locale: "ko-KR"), now: start) != nil)
        #expect(cache.lookup(PageCacheKey(route: .list, number: 15, locale: "ko-KR"), now: start) == nil)
    }

    @Test func entityTagsAreContentHashes() {
        #expect(EntityTag.strong(for: []) == "\"cbf29ce484222325\"")
        #expect(EntityTag.strong(for: Array("a".utf8)) == "\"af63dc4c8601ec8c\"")
        let cached = page()
        #expect(cached.gzipETag == String(cached.etag.dropLast()) + "-gzip\"")
    }

    @Test func ifNoneMatchMatchesEitherRepresentationWeakly() {
        let cached = page()
        #expect(cached.matches(ifNoneMatch: cached.etag))
        #expect(cached.matches(ifNoneMatch: "W/" + cached.etag))
        #expect(cached.matches(ifNoneMatch: "\"other\", " + cached.gzipETag))
        #expect(cached.matches(ifNoneMatch: "*"))
        #expect(!cached.matches(ifNoneMatch: "\"other\""))
        #expect(!cached.matches(ifNoneMatch: String(cached.etag.dropFirst())))
    }

    @Test func aStoreFromBeforeAnInvalidationIsRefused() {
        let cache = PageCache(configuration: .init())
        let before = cache.generation
        #expect(cache.store(page(), for: key, ifGeneration: before) == 0)
        cache.remove { $0.route == .list }
        #expect(cache.generation == before + 1)
        #expect(cache.store(page(), for: key, ifGeneration: before) == nil)
        #expect(cache.lookup(key, now: .now) == nil)
        #expect(cache.store(page(), for: key, ifGeneration: cache.generation) == 0)
        #expect(cache.count == 1)
    }

    /// A replica that lost track of other replicas' writes: what it stored before is fetched
    /// anew before it is served (until it would have been dropped anyway); what it stores
    /// after is fresh as usual, capped while the cap is set; fetches begun before store nothing.
    @Test func pagesStoredBeforeAMarkNeedRevalidation() {
        let cache = PageCache(configuration: .init(byteBudget: 1 << 20, staleWhileRevalidate: .seconds(10), staleIfError: .seconds(100)))
        let other = PageCacheKey(route: .detail, number: 7, locale: "ko-KR")
        cache.store(page(), for: key)
        let before = cache.generation
        cache.markForRevalidation(at: start + .seconds(5))
        #expect(cache.generation == before + 1)
        #expect(cache.store(page(at: .seconds(5)), for: other, ifGeneration: before) == nil)
        #expect(cache.lookup(key, now: start + .seconds(6))?.freshness == .revalidate)
        #expect(cache.lookup(key, now: start + .seconds(35))?.freshness == .revalidate)
        #expect(cache.lookup(key, now: start + .seconds(129))?.freshness == .revalidate)
        cache.setFreshnessCap(.seconds(1))
        cache.store(page(at: .seconds(5)), for: other)
        #expect(cache.lookup(other, now: start + .seconds(5.5))?.freshness == .fresh)
        #expect(cache.lookup(other, now: start + .seconds(6))?.freshness == .stale)
        #expect(cache.lookup(key, now: start + .seconds(130)) == nil)
        #expect(cache.count == 1)
    }
}
