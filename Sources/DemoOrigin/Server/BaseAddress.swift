import GatewayModels
import GatewaySupport

/// The origin's base URL (`http://127.0.0.1:8081`) for the absolute image URLs it writes;
/// set once the port is bound.
final class BaseAddress: Sendable {
    private let stored = Locked("")

    var value: String {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }
}
