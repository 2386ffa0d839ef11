/// The decisions of one origin's connection pool on one loop, without any I/O.
///
/// An evhttp connection carries one request at a time, so the pool leases whole
/// connections: a request takes an idle connection (the most recently used, so the others
/// can expire), or opens a new one below `maxConnections`, or waits in a bounded queue, or
/// is refused. A released connection goes to the first waiter, or back to idle. Broken
/// connections are never reused. The owner (`OriginPool`) performs the returned actions.
///
/// Value type; one loop owns it.
struct OriginPoolState: Sendable {
    struct Configuration: Sendable, Equatable {
        var maxConnections: Int
        var maxWaiters: Int
        var idleTimeout: Duration
    }

    typealias ConnectionID = Int
    typealias WaiterID = Int

    enum LeaseAction: Equatable {
        /// Run the request on this idle connection.
        case use(ConnectionID)
        /// Open this new connection and run the request on it.
        case open(ConnectionID)
        /// No connection is free: the request waits as this waiter.
        case wait(WaiterID)
        /// The pool and its queue are full.
        case refuse
    }

    enum ReleaseAction: Equatable {
        /// The connection stays open, idle.
        case park
        /// Run this waiter's request on the released connection.
        case handOver(ConnectionID, to: WaiterID)
        /// Close the released (broken) connection.
        case close(ConnectionID)
        /// Close the broken connection and open a new one for this waiter.
        case closeAndOpen(ConnectionID, open: ConnectionID, for: WaiterID)
    }

    private enum Connection: Equatable {
        case idle(since: ContinuousClock.Instant)
        case leased
    }

    let configuration: Configuration
    private var connections: [ConnectionID: Connection] = [:]
    /// Idle connections, most recently released last.
    private var idleOrder: [ConnectionID] = []
    private var waiters: [WaiterID] = []
    private var nextID = 1

    init(configuration: Configuration) {
        precondition(configuration.maxConnections > 0 && configuration.maxWaiters >= 0)
        self.configuration = configuration
    }

    var openConnections: Int { connections.count }
    var idleConnections: Int { idleOrder.count }
    var waiting: Int { waiters.count }

    /// A request wants a connection.
    mutating func lease() -> LeaseAction {
        if let id = idleOrder.popLast() {
            connections[id] = .leased
            return .use(id)
        }
        if connections.count < configuration.maxConnections {
            let id = makeID()
            connections[id] = .leased
            return .open(id)
        }
        if waiters.count < configuration.maxWaiters {
            let id = makeID()
            waiters.append(id)
            return .wait(id)
        }
        return .refuse
    }

    /// A leased connection is done with its request. `reusable` is false after any failure
    /// or when the connection is known to be closed.
    mutating func release(_ id: ConnectionID, reusable: Bool, now: ContinuousClock.Instant) -> ReleaseAction {
        precondition(connections[id] == .leased, "release of connection \(id), which is not leased")
        if reusable {
            if !waiters.isEmpty {
                return .handOver(id, to: waiters.removeFirst())
            }
            connections[id] = .idle(since: now)
            idleOrder.append(id)
            return .park
        }
        connections[id] = nil
        if !waiters.isEmpty {
            let replacement = makeID()
            connections[replacement] = .leased
            return .closeAndOpen(id, open: replacement, for: waiters.removeFirst())
        }
        return .close(id)
    }

    /// An idle connection was closed by the origin (or broke): forget it. Returns false when
    /// it was not idle (a leased connection's failure comes through `release`).
    mutating func idleConnectionClosed(_ id: ConnectionID) -> Bool {
        guard case .idle = connections[id] else { return false }
        connections[id] = nil
        idleOrder.removeAll { $0 == id }
        return true
    }

    /// A waiter gave up (its deadline passed). Returns false when it was not waiting (it
    /// already got a connection).
    mutating func cancelWaiter(_ id: WaiterID) -> Bool {
        guard let index = waiters.firstIndex(of: id) else { return false }
        waiters.remove(at: index)
        return true
    }

    /// The idle connections unused for `idleTimeout` at `now`, which the owner closes.
    mutating func expireIdle(now: ContinuousClock.Instant) -> [ConnectionID] {
        let expired = idleOrder.filter { id in
            guard case .idle(let since) = connections[id] else { return false }
            return now - since >= configuration.idleTimeout
        }
        for id in expired {
            connections[id] = nil
        }
        idleOrder.removeAll { expired.contains($0) }
        return expired
    }

    private mutating func makeID() -> Int {
        defer { nextID += 1 }
        return nextID
    }
}
