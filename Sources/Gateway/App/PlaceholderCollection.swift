import GatewayModels
import HTTPInterface
import GatewaySupport
import Tracing

/// The placeholders of one page being mapped (`include=placeholders`): each image's as known
/// now, and the URLs still unknown, to prepare in the background. One per mapping; its lookup
/// may be called from the mapping's thread only (it is `Sendable` for the mapper's signature).
final class PlaceholderCollection: Sendable {
    private let images: ImageReads?
    /// Unknown URLs with their positions in their lists, in the mapping's order.
    private let unknown = Locked<[(url: String, position: Int)]>([])
    private let counts = Locked<(ready: Int, missing: Int)>((0, 0))

    init(images: ImageReads?) {
        self.images = images
    }

    /// The mapper's lookup: a ready placeholder, else nil (failed ones too); unknown URLs are
    /// noted.
    var lookup: ImagePlaceholderLookup {
        { [images, unknown, counts] url, position in
            guard let images else { return nil }
            switch images.placeholder(for: url) {
            case .ready(let placeholder):
                counts.withLock { $0.ready += 1 }
                return placeholder
            case .failed:
                counts.withLock { $0.missing += 1 }
                return nil
            case .unknown:
                counts.withLock { $0.missing += 1 }
                unknown.withLock { $0.append((url, position)) }
                return nil
            }
        }
    }

    /// Whether any placeholder was unknown (being computed, or not asked for yet): the page
    /// is incomplete.
    var hasUnknown: Bool { unknown.withLock { !$0.isEmpty } }

    /// Placeholders the mapping put in (`ready`) and left null (`missing`: pending or failed).
    var ready: Int { counts.withLock { $0.ready } }
    var missing: Int { counts.withLock { $0.missing } }

    /// Starts preparing the unknown ones, every list's first image before any second one (a
    /// list cell shows its first thumbnail: if the wait ends early, those are what it has),
    /// deduplicated; in the prefetch lane, which may refuse some (those complete at once as
    /// `.unknown`, left for a later read). `completion` is called once for each; returns how
    /// many were asked for.
    @discardableResult
    func prepareMissing(
        origin: (any OriginSending)?, redis: (any RedisCommanding)?, requestID: String, scope: TraceScope? = nil,
        completion: @escaping @Sendable (ImagePlaceholders.Lookup) -> Void = { _ in }
    ) -> Int {
        // Stable: in the mapping's order within each position.
        let urls = unknown.withLock { $0 }.enumerated().sorted { ($0.element.position, $0.offset) < ($1.element.position, $1.offset) }
            .map(\.element.url)
        guard let images else { return 0 }
        var seen = Set<String>()
        var started = 0
        for url in urls where seen.insert(url).inserted {
            images.preparePlaceholder(url, origin: origin, redis: redis, requestID: requestID, scope: scope, completion: completion)
            started += 1
        }
        return started
    }
}

/// Waits for the placeholders being prepared, or until ``expire()``, whichever comes first,
/// then runs `then` once. Those that end before ``arm(expecting:)`` (how many were started)
/// count too. Thread-safe.
///
/// `then` (which holds the answer being made, and through it the application) is let go once
/// it has run: the expiry timer keeps this object until its deadline, not what `then` holds.
final class PlaceholderWait: Sendable {
    private struct State {
        var expected: Int?
        var done = 0
        /// Nil once fired.
        var then: (@Sendable () -> Void)?
    }

    private let state: Locked<State>

    init(then: @escaping @Sendable () -> Void) {
        state = Locked(State(then: then))
    }

    /// One placeholder is ready (or failed).
    func oneDone() {
        fire { state in
            state.done += 1
            return state.expected.map { state.done >= $0 } ?? false
        }
    }

    /// `count` preparations were started.
    func arm(expecting count: Int) {
        fire { state in
            state.expected = count
            return state.done >= count
        }
    }

    /// The wait is over.
    func expire() {
        fire { _ in true }
    }

    private func fire(when decide: (inout State) -> Bool) {
        let then = state.withLock { state -> (@Sendable () -> Void)? in
            guard state.then != nil, decide(&state) else { return nil }
            defer { state.then = nil }
            return state.then
        }
        then?()
    }
}
