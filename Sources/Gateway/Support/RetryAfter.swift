import HTTPInterface

extension GatewayError {
    /// This error with `Retry-After`: `wait` in whole seconds, rounded up, at least 1.
    func retryingAfter(_ wait: Duration) -> GatewayError {
        adding(header: "Retry-After", String(max(1, Int((wait / .seconds(1)).rounded(.up)))))
    }
}
