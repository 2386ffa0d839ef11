import GatewayModels

/// How the product read path caches its pages and resolves locales.
public struct ReadPathConfiguration: Sendable {
    /// Freshness of list pages and of product details.
    public var listTimeToLive: Duration = .seconds(30)
    public var detailTimeToLive: Duration = .seconds(60)
    /// How long an origin 404 is remembered.
    public var notFoundTimeToLive: Duration = .seconds(5)
    /// How long a page answered with placeholders still being computed stays fresh (at most
    /// 5 s; not a flag: tests shorten it).
    public var incompletePlaceholdersTimeToLive: Duration = .seconds(5)
    /// `--placeholder-wait`: how long a miss asked with `include=placeholders` waits for the
    /// placeholders being computed before it answers with those it has.
    public var placeholderWait: Duration = .milliseconds(150)
    /// `--prefetch-details`: how many of a list page's first products have their details
    /// fetched in the background when the page comes from the origin (0: none).
    public var prefetchDetails = 0
    /// Whether product answers are `Cache-Control: private` (set with `--auth-required all`:
    /// a shared cache must not hand one user's answer to another), else `public`.
    public var privateAnswers = false
    /// How long a v1 origin page is reused to assemble contract pages (at most the list's
    /// time to live). Not a flag: tests that must not depend on the clock lengthen it.
    var v1OriginPageMaxAge: Duration = .seconds(10)
    public var cache = PageCache.Configuration()
    /// Supported locales and the default for everything else.
    public var locales = LocaleResolver()

    public init() {}
}
