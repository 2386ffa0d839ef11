/// Checks `condition` every `interval` until it holds or `limit` has passed; returns whether
/// it held. For tests that wait on what a server does in the background.
public func poll(every interval: Duration = .milliseconds(5), for limit: Duration = .seconds(5), until condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { return condition() }
        try await Task.sleep(for: interval)
    }
    return true
}
