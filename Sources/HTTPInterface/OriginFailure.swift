/// Why no response came from the origin.
public enum OriginFailure: Error, Sendable, Equatable {
    /// DNS failed, or the connection was refused or could not be made in time.
    case connectFailed(String)
    /// No complete answer within the request timeout. For a write the outcome is unknown.
    case timedOut
    /// The connection closed or broke before a complete response.
    case connectionLost
    /// The response could not be read: bad framing, headers, or gzip.
    case invalidResponse(String)
    /// The response body is larger than the client accepts.
    case responseTooLarge(limit: Int)
    /// Every connection to the origin is busy and the queue is full.
    case overloaded

    /// How a client sees it: problem+json, 504 for time-outs, 503 when overloaded, 502
    /// otherwise.
    public var gatewayError: GatewayError {
        switch self {
        case .timedOut:
            .gatewayTimeout("The origin did not answer in time.")
        case .overloaded:
            .serviceUnavailable("Too many requests are waiting for the origin.")
        case .connectFailed(let reason):
            .badGateway("The origin could not be reached: \(reason).")
        case .connectionLost:
            .badGateway("The origin closed the connection before answering.")
        case .invalidResponse(let reason):
            .badGateway("The origin's response could not be read: \(reason).")
        case .responseTooLarge(let limit):
            .badGateway("The origin's response is larger than \(limit) bytes.")
        }
    }
}
