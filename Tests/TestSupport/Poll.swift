/// Checks `condition` every `interval` until it holds or `limit` has passed; returns whether
/// it held. For tests that wait on what a server does in the background.
/// `condition` may itself wait (ask the server over HTTP); what it throws ends the polling.
public func poll(
    every interval: Duration = .milliseconds(5), for limit: Duration = .seconds(5), until condition: () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while try await !condition() {
        guard ContinuousClock.now < deadline else { return try await condition() }
        try await Task.sleep(for: interval)
    }
    return true
}
