import GatewayModels
import GatewaySupport

/// The placeholders known to this process, by source URL: ready ones, and failures remembered
/// for ``failureMemory`` so a source that cannot be read is not fetched again for every list
/// read. At most ``capacity`` URLs, least recently used forgotten first (a placeholder is
/// about 100 bytes with its key). Thread-safe.
final class ImagePlaceholders: Sendable {
    /// What is known of one source's placeholder.
    enum Lookup: Sendable, Equatable {
        case ready(ImagePlaceholder)
        /// Its source could not be fetched or decoded a moment ago.
        case failed
        /// Never asked for, forgotten, or its failure is old enough to try again.
        case unknown
    }

    private enum Entry: Sendable {
        case ready(ImagePlaceholder)
        case failed(until: ContinuousClock.Instant)
    }

    /// How long a failed source is not tried again.
    static let failureMemory: Duration = .seconds(60)
    static let capacity = 100_000

    private let entries = Locked(LRUStore<String, Entry>(budget: ImagePlaceholders.capacity))

    func lookup(_ url: String, now: ContinuousClock.Instant = .now) -> Lookup {
        entries.withLock { store in
            switch store.get(url) {
            case .ready(let placeholder): .ready(placeholder)
            case .failed(let until): until > now ? .failed : .unknown
            case nil: .unknown
            }
        }
    }

    func store(_ placeholder: ImagePlaceholder, for url: String) {
        entries.withLock { _ = $0.set(url, .ready(placeholder), cost: 1) }
    }

    /// How many URLs are known (ready or failed).
    var count: Int { entries.withLock { $0.count } }

    /// Forgets everything (a purge: a source may have changed at its URL).
    func removeAll() {
        entries.withLock { $0 = LRUStore(budget: Self.capacity) }
    }

    /// Remembers that `url` failed, unless a placeholder is known for it.
    func storeFailure(for url: String, now: ContinuousClock.Instant = .now) {
        entries.withLock { store in
            if case .ready = store.get(url) { return }
            _ = store.set(url, .failed(until: now + Self.failureMemory), cost: 1)
        }
    }
}
