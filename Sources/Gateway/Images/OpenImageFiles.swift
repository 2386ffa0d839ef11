import GatewayModels

/// The disk tier's open files: by URL for hits, by file name for eviction, at most
/// `capacity` open at once (least recently used closed first; a file still being sent stays
/// open until its connection lets go). Thread-safe; one short lock per call.
final class OpenImageFiles: Sendable {
    private struct State {
        var byURL: LRUStore<String, OpenImageFile>
        var urlByName: [String: String] = [:]
    }

    private let state: Locked<State>

    init(capacity: Int) {
        state = Locked(State(byURL: LRUStore(budget: capacity)))
    }

    /// The open file of `url`. No allocation.
    func get(_ url: String) -> OpenImageFile? {
        state.withLock { $0.byURL.get(url) }
    }

    /// Keeps `file` open for `url`, stored under file `name`.
    func insert(_ file: OpenImageFile, url: String, name: String) {
        state.withLock { state in
            for evicted in state.byURL.insert(url, file, cost: 1) {
                state.urlByName = state.urlByName.filter { $0.value != evicted }
            }
            state.urlByName[name] = url
        }
    }

    /// Closes (lets go of) the file stored under `name`, when open.
    func remove(name: String) {
        state.withLock { state in
            guard let url = state.urlByName.removeValue(forKey: name) else { return }
            _ = state.byURL.remove(url)
        }
    }

    var count: Int { state.withLock { $0.byURL.count } }
}
