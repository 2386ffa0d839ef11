import Authentication
import Dispatch
import Foundation
import GatewayModels
import HTTPInterface
import Logging
import Observability
import Tracing
import GatewaySupport

/// The identity provider's key set as this process holds it: loaded at start, refreshed in the
/// background when its freshness ends (its `Cache-Control` max-age, 60 s to 24 h; 10 minutes
/// without), fetched again at once for a token naming an unknown `kid` but **at most once in
/// any 30 s** (``refetchSpacing``; the first load counts), so no stream of made-up `kid`s can
/// hammer the provider. A set that fails to load keeps the last good one: logged once per
/// run of failures, counted in `gateway_auth_key_set_failures_total`, shown by ``status``.
///
/// Fetches and file reads never run on a loop's thread in a blocking way: URLs go through the
/// ``KeySetFetching`` client (non-blocking, on the first loop), files are read on a global
/// queue. Thread-safe.
public final class AuthKeys: Sendable {
    /// What `/readyz` says of the keys.
    public enum Status: String, Sendable {
        /// Loaded, and the last fetch succeeded.
        case fresh
        /// Loaded once, but the last fetch failed: the last good set is in use.
        case stale
        /// Never loaded: requests that need a token get 503.
        case missing
    }

    /// The least time between two fetches started for unknown `kid`s (or between the first
    /// load and such a fetch): 30 s.
    let refetchSpacing: Duration
    /// How soon a failed fetch is tried again in the background: 30 s.
    let retryAfterFailure: Duration

    private struct State {
        var set: JSONWebKeySet?
        /// When ``set`` was loaded.
        var loadedAt: ContinuousClock.Instant?
        var lastFailed = false
        var loading = false
        var lastStarted: ContinuousClock.Instant?
        var waiters: [@Sendable (Bool) -> Void] = []
        var failureLogged = false
        var fetcher: (any KeySetFetching)?
        var loop: (any LoopExecutor)?
        /// Where each load's trace goes (root span `auth.key_set.load`); nil without tracing.
        var tracer: Tracer?
        /// The background refresh's timer: each load schedules the next and supersedes any
        /// scheduled before (a refetch for an unknown `kid` must not start a second chain).
        var timer = 0
    }

    let source: KeySetSource
    private let state = Locked(State())
    private let metrics: GatewayMetrics
    private let logger: Logger
    /// Told of every new set (the authenticator forgets tokens of removed keys).
    private let changed: Locked<[@Sendable (JSONWebKeySet) -> Void]> = Locked([])

    init(source: KeySetSource, refetchSpacing: Duration, retryAfterFailure: Duration, metrics: GatewayMetrics, logger: Logger) {
        self.source = source
        self.refetchSpacing = refetchSpacing
        self.retryAfterFailure = retryAfterFailure
        self.metrics = metrics
        self.logger = logger
    }

    /// The set in use, if any has loaded.
    var current: JSONWebKeySet? { state.withLock { $0.set } }

    public var status: Status {
        state.withLock { state in
            guard state.set != nil else { return .missing }
            return state.lastFailed ? .stale : .fresh
        }
    }

    /// How long ago the set in use was loaded; nil before the first load.
    func age(now: ContinuousClock.Instant) -> Duration? {
        state.withLock { $0.loadedAt }.map { now - $0 }
    }

    func onChange(_ observer: @escaping @Sendable (JSONWebKeySet) -> Void) {
        changed.withLock { $0.append(observer) }
    }

    /// Starts loading: the first fetch now, later ones on `loop`'s timers. `fetcher` makes
    /// the GETs for URL sources. Call once, on any thread. With `tracer`, a load is a trace
    /// of its own (root span `auth.key_set.load`, its GETs CLIENT spans under it): sampled as
    /// new traces are, and always when a recorded request's unknown `kid` asked for it (then
    /// linked to that request).
    public func start(fetcher: (any KeySetFetching)?, loop: any LoopExecutor, tracer: Tracer? = nil) {
        state.withLock { state in
            state.fetcher = fetcher
            state.loop = loop
            state.tracer = tracer
        }
        load(reason: "start", completion: nil)
    }

    /// Fetches the set again for a token whose `kid` it lacks, unless a fetch started less
    /// than ``refetchSpacing`` ago (then `completion(false)` at once; a fetch under way is
    /// joined). `completion(true)` once a fetch ends (the set may or may not have the `kid`
    /// now), on any thread.
    /// `cause`: the recorded request whose token asked (the load's trace links to it).
    func refetch(cause: SpanLink? = nil, completion: @escaping @Sendable (Bool) -> Void) {
        let now = ContinuousClock.now
        enum Decision { case join, refuse, start }
        let decision = state.withLock { state -> Decision in
            if state.loading {
                state.waiters.append(completion)
                return .join
            }
            if let last = state.lastStarted, now - last < refetchSpacing { return .refuse }
            return .start
        }
        switch decision {
        case .join: return
        case .refuse: completion(false)
        case .start: load(reason: "unknown kid", cause: cause, completion: completion)
        }
    }

    /// One load: fetch, read, install or keep the old set; then the next background load
    /// is scheduled (at the set's freshness, or ``retryAfterFailure``).
    private func load(reason: String, cause: SpanLink? = nil, completion: (@Sendable (Bool) -> Void)?) {
        let (begin, tracer) = state.withLock { state -> (Bool, Tracer?) in
            if let completion { state.waiters.append(completion) }
            guard !state.loading else { return (false, nil) }
            state.loading = true
            state.lastStarted = .now
            return (true, state.tracer)
        }
        guard begin else { return }
        let trace = BackgroundTrace.begin(tracer: tracer, cause: cause)
        fetch(trace: trace?.scope.trace) { [self] result in
            if let trace {
                let failure: String? = if case .failure = result { "key_set_unavailable" } else { nil }
                trace.end("auth.key_set.load", attributes: [SpanAttribute(SemanticConventions.keySetLoadReason, reason)], failure: failure)
            }
            let next: Duration
            switch result {
            case .success(let (set, freshness)):
                next = freshness
                state.withLock { state in
                    state.set = set
                    state.loadedAt = .now
                    state.lastFailed = false
                    state.failureLogged = false
                }
                for observer in changed.withLock({ $0 }) { observer(set) }
                if !set.skipped.isEmpty {
                    logger.warning("identity provider key set: keys skipped", metadata: ["skipped": .string(set.skipped.joined(separator: "; "))])
                }
                logger.info("identity provider key set loaded", metadata: ["keys": .stringConvertible(set.keys.count), "reason": .string(reason)])
            case .failure(let problem):
                next = retryAfterFailure
                metrics.authKeySetFailure()
                let logNow = state.withLock { state -> Bool in
                    state.lastFailed = true
                    defer { state.failureLogged = true }
                    return !state.failureLogged
                }
                if logNow {
                    logger.error(
                        "cannot load the identity provider's key set; keeping the last good one if any",
                        metadata: ["error": .string(problem.description), "status": .string(status.rawValue)])
                }
            }
            let (waiters, loop, timer) = state.withLock { state -> ([@Sendable (Bool) -> Void], (any LoopExecutor)?, Int) in
                state.loading = false
                state.timer += 1
                defer { state.waiters = [] }
                return (state.waiters, state.loop, state.timer)
            }
            for waiter in waiters { waiter(true) }
            loop?.schedule(after: next) { [self] in
                guard state.withLock({ $0.timer == timer }) else { return }
                load(reason: "refresh", completion: nil)
            }
        }
    }

    /// Reads the set from its source.
    private func fetch(
        trace: TraceContext?, _ completion: @escaping @Sendable (Result<(JSONWebKeySet, Duration), KeySetDocuments.Problem>) -> Void
    ) {
        switch source {
        case .file(let path):
            DispatchQueue.global().async {
                guard let data = FileManager.default.contents(atPath: path) else {
                    return completion(.failure(KeySetDocuments.Problem(description: "cannot read \(path)")))
                }
                completion(Self.read(Array(data), cacheControl: nil))
            }
        case .url(let url):
            get(url, trace: trace) { result in completion(result.flatMap { Self.read($0.body, cacheControl: $0.headers["Cache-Control"]) }) }
        case .discovery(let issuer):
            get(KeySetDocuments.discoveryURL(issuer: issuer), trace: trace) { [self] result in
                switch result {
                case .failure(let problem): completion(.failure(problem))
                case .success(let answer):
                    do throws(KeySetDocuments.Problem) {
                        let url = try KeySetDocuments.keySetURL(fromDiscovery: answer.body, issuer: issuer)
                        get(url, trace: trace) { result in
                            completion(result.flatMap { Self.read($0.body, cacheControl: $0.headers["Cache-Control"]) })
                        }
                    } catch {
                        completion(.failure(error))
                    }
                }
            }
        }
    }

    /// One GET through the fetcher: a 200 within ``JSONWebKeySet/maxBytes``, else a problem.
    private func get(
        _ url: String, trace: TraceContext?, completion: @escaping @Sendable (Result<OriginResponse, KeySetDocuments.Problem>) -> Void
    ) {
        guard let fetcher = state.withLock({ $0.fetcher }) else {
            return completion(.failure(KeySetDocuments.Problem(description: "no client to fetch \(url)")))
        }
        // The image fetches' URL reader: scheme, host, port and target.
        guard let destination = ImageDestination(url: url) else {
            return completion(.failure(KeySetDocuments.Problem(description: "\(url) is not an http or https URL")))
        }
        let endpoint = OriginEndpoint(scheme: destination.scheme, host: destination.host, port: destination.port)
        fetcher.get(destination.target, from: endpoint, maxBytes: JSONWebKeySet.maxBytes, trace: trace) { result in
            switch result {
            case .failure(let failure): completion(.failure(KeySetDocuments.Problem(description: "\(url): \(failure.gatewayError.detail)")))
            case .success(let answer) where answer.status != 200:
                completion(.failure(KeySetDocuments.Problem(description: "\(url) answered \(answer.status)")))
            case .success(let answer): completion(.success(answer))
            }
        }
    }

    private static func read(_ body: [UInt8], cacheControl: String?) -> Result<(JSONWebKeySet, Duration), KeySetDocuments.Problem> {
        do {
            return .success((try JSONWebKeySet.read(body), KeySetDocuments.freshness(cacheControl: cacheControl)))
        } catch {
            return .failure(KeySetDocuments.Problem(description: error.description))
        }
    }
}
