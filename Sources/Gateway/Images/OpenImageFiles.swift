import GatewayModels
import GatewaySupport

/// The disk tier's open files: by variant for hits, by file name for eviction, at most
/// `capacity` open at once (least recently used closed first; a file still being sent stays
/// open until its connection lets go). Thread-safe; one short lock per call.
final class OpenImageFiles: Sendable {
    private struct State {
        var byVariant: LRUStore<ImageVariant, OpenImageFile>
        var variantByName: [String: ImageVariant] = [:]
    }

    private let state: Locked<State>

    init(capacity: Int) {
        state = Locked(State(byVariant: LRUStore(budget: capacity)))
    }

    /// The open file of `variant`. No allocation.
    func get(_ variant: ImageVariant) -> OpenImageFile? {
        state.withLock { $0.byVariant.get(variant) }
    }

    /// Keeps `file` open for `variant`, stored under file `name`.
    func insert(_ file: OpenImageFile, variant: ImageVariant, name: String) {
        state.withLock { state in
            for evicted in state.byVariant.insert(variant, file, cost: 1) {
                state.variantByName = state.variantByName.filter { $0.value != evicted }
            }
            state.variantByName[name] = variant
        }
    }

    /// Closes (lets go of) the file stored under `name`, when open.
    func remove(name: String) {
        state.withLock { state in
            guard let variant = state.variantByName.removeValue(forKey: name) else { return }
            _ = state.byVariant.remove(variant)
        }
    }

    var count: Int { state.withLock { $0.byVariant.count } }
}
