/// When the origin's circuit breaker opens and how long it stays open (`--origin-breaker-*`;
/// see ``CircuitBreaker``).
public struct BreakerConfiguration: Sendable, Hashable {
    /// `--origin-breaker-failures`: failures in a row that open it; 0: never on a run alone.
    public var failures = 5
    /// `--origin-breaker-ratio`: the share of failed requests over `window` that opens it,
    /// once at least `minimumRequests` ended there; above 1: never on a ratio.
    public var ratio = 0.5
    /// `--origin-breaker-window`.
    public var window: Duration = .seconds(10)
    /// Requests the window needs before its ratio counts. Not a flag.
    public var minimumRequests = 20
    /// `--origin-breaker-open`: how long it stays open before one probe may go.
    public var openFor: Duration = .seconds(5)
    /// How long a half-open probe holds the one slot if it never reports back. Not a flag.
    public var probeTimeout: Duration = .seconds(30)
    /// How long after it closed the origin counts as recovering: refreshes of stored pages
    /// then go a few at a time (``ProductReads``). Not a flag.
    public var recovery: Duration = .seconds(30)
    /// `--origin-breaker-failures 0` with a ratio above 1: the breaker never opens.
    public var isOff: Bool { failures == 0 && ratio > 1 }

    public init() {}
}
