import Synchronization

/// Whether the server has begun to shut down (after SIGTERM or SIGINT). One per server,
/// shared by every loop and handed to handlers through `RouteContext`, so a handler that
/// answers later (after an origin request, say) sees the state at the time it answers.
/// Any thread.
public final class DrainState: Sendable {
    private let flag = Atomic<Bool>(false)

    public init() {}

    /// True from ``begin()`` on.
    public var isDraining: Bool { flag.load(ordering: .relaxed) }

    /// Marks the server as draining; there is no way back.
    public func begin() { flag.store(true, ordering: .relaxed) }
}
