import GatewayModels
import GatewaySupport

/// The shared counters behind ``RequestCounts``. Thread-safe.
final class RequestCounter: Sendable {
    private let counts = Locked(RequestCounts())

    func record(route: String, path: String, authorized: Bool = false) {
        counts.withLock { counts in
            counts.total += 1
            if authorized { counts.authorized += 1 }
            counts.routes[route, default: 0] += 1
            counts.paths[path, default: 0] += 1
        }
    }

    var snapshot: RequestCounts { counts.withLock { $0 } }

    func reset() {
        counts.withLock { $0 = RequestCounts() }
    }
}
