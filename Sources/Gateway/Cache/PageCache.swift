import GatewayModels
import GatewaySupport

/// The page cache: contract bytes by normalised key, least recently used first out when
/// the byte budget is exceeded. Shared by every loop; thread-safe (one short lock per
/// lookup or store).
///
/// An entry's life, by age:
/// - younger than its time to live: **fresh**, served as is;
/// - then, for `staleWhileRevalidate`: **stale**, served while one refresh runs;
/// - then, up to `staleIfError` past its time to live: **expired**, fetched anew, but
///   served if the origin fails;
/// - after that it is dropped.
///
/// Pages stored before ``markForRevalidation(at:)`` (a replica that lost track of other
/// replicas' writes) are **revalidate** whatever their age: fetched anew before they are
/// served, and served only if the origin fails, as expired ones are.
public final class PageCache: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var byteBudget: Int
        public var staleWhileRevalidate: Duration
        public var staleIfError: Duration

        public init(byteBudget: Int = 64 << 20, staleWhileRevalidate: Duration = .seconds(30), staleIfError: Duration = .seconds(3600)) {
            self.byteBudget = byteBudget
            self.staleWhileRevalidate = staleWhileRevalidate
            self.staleIfError = staleIfError
        }
    }

    public enum Freshness: Sendable, Equatable {
        case fresh
        case stale
        case expired
        /// Stored before the last ``markForRevalidation(at:)``: fetched anew before it is served
        /// again (and served, like an expired page, only if the origin fails).
        case revalidate
    }

    public let configuration: Configuration
    private let state: Locked<State>

    private struct State {
        var store: LRUStore<PageCacheKey, CachedPage>
        /// Bumped by every ``remove(where:)``, under the same lock as the stores.
        var generation = 0
        /// The longest a page stored now may be fresh, when set.
        var freshnessCap: Duration?
        /// Pages stored before this instant need revalidation.
        var revalidateBefore: ContinuousClock.Instant?
    }

    public init(configuration: Configuration) {
        self.configuration = configuration
        state = Locked(State(store: LRUStore(budget: configuration.byteBudget)))
    }

    /// The invalidation generation now: take it before fetching what will be stored with
    /// ``store(_:for:ifGeneration:)``.
    public var generation: Int { state.withLock { $0.generation } }

    /// The entry for `key` and how fresh it is at `now`, or nil (entries past the
    /// stale-if-error window are dropped here).
    public func lookup(_ key: PageCacheKey, now: ContinuousClock.Instant) -> (page: CachedPage, freshness: Freshness)? {
        state.withLock { state -> (CachedPage, Freshness)? in
            guard let page = state.store.get(key) else { return nil }
            let age = now - page.storedAt
            if let mark = state.revalidateBefore, page.storedAt < mark, age < page.timeToLive + configuration.staleIfError {
                return (page, .revalidate)
            }
            if age < page.timeToLive { return (page, .fresh) }
            if page.revalidatesInBackground, age < page.timeToLive + configuration.staleWhileRevalidate { return (page, .stale) }
            if age < page.timeToLive + configuration.staleIfError { return (page, .expired) }
            state.store.remove(key)
            return nil
        }
    }

    /// Stores `page` for `key`, replacing any entry, and returns how many entries were
    /// evicted to stay within the budget. A page larger than the whole budget is not kept.
    /// With `generation`, the page is stored only if no ``remove(where:)`` happened since that
    /// generation was read (checked under the lock, so an invalidation cannot slip between
    /// the check and the store); nil when refused.
    @discardableResult
    public func store(_ page: CachedPage, for key: PageCacheKey, ifGeneration generation: Int? = nil) -> Int? {
        state.withLock { state in
            if let generation, generation != state.generation { return nil }
            guard let cap = state.freshnessCap, page.timeToLive > cap else { return state.store.set(key, page, cost: page.cost) }
            var capped = page
            capped.timeToLive = cap
            return state.store.set(key, capped, cost: page.cost)
        }
    }

    /// From now on, pages are stored fresh for at most `cap` (nil: as long as they say). For
    /// replicas: while this process cannot hear other replicas' writes, what it caches must
    /// not stay fresh for long.
    public func setFreshnessCap(_ cap: Duration?) {
        state.withLock { $0.freshnessCap = cap }
    }

    /// From now on, every page stored before `now` needs revalidation (``Freshness/revalidate``),
    /// and fetches that began before it store nothing (a new generation). For replicas: this
    /// process stopped hearing, or heard again, other replicas' writes, and cannot know what
    /// it missed.
    public func markForRevalidation(at now: ContinuousClock.Instant) {
        state.withLock { state in
            state.revalidateBefore = now
            state.generation += 1
        }
    }

    /// Drops every entry whose key satisfies `shouldRemove` and starts a new generation;
    /// returns how many were dropped.
    @discardableResult
    public func remove(where shouldRemove: (PageCacheKey) -> Bool) -> Int {
        state.withLock { state in
            state.generation += 1
            return state.store.removeAll(where: shouldRemove)
        }
    }

    public var count: Int { state.withLock { $0.store.count } }
    public var bytes: Int { state.withLock { $0.store.totalCost } }
}

/// What a cached page is for: the route, the one number it reads (list page or product id,
/// normalised), the resolved locale, and for lists the page size and normalised search. Never raw headers or the raw query, so clients
/// cannot split or poison entries. Small strings and integers only: making one to look up a
/// hit allocates nothing.
public struct PageCacheKey: Sendable, Hashable, CustomStringConvertible {
    public enum Route: UInt8, Sendable {
        /// `/v1/products?page=N`
        case list
        /// `/v1/products/{id}`
        case detail
    }

    public let route: Route
    public let number: Int64
    public let locale: String
    /// Lists: the page size (0 for details).
    public let pageSize: Int
    /// Lists: the normalised search text (`ListQuery.normalisedSearch`), nil for none.
    public let search: String?
    /// `include=placeholders`: a page of its own (its placeholders change as they are computed).
    public let placeholders: Bool

    public init(route: Route, number: Int64, locale: String, pageSize: Int = 0, search: String? = nil, placeholders: Bool = false) {
        self.route = route
        self.number = number
        self.locale = locale
        self.pageSize = pageSize
        self.search = search
        self.placeholders = placeholders
    }

    public var description: String {
        let include = placeholders ? "include=placeholders" : nil
        switch route {
        case .list: return "/v1/products?page=\(number)&pageSize=\(pageSize)\(search.map { "&q=\($0)" } ?? "")\(include.map { "&" + $0 } ?? "")#\(locale)"
        case .detail: return "/v1/products/\(number)\(include.map { "?" + $0 } ?? "")#\(locale)"
        }
    }
}
