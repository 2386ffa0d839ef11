import HTTPInterface

/// A page's backoff as the replicas share it in Redis (`<entry>:backoff`, expiring when the
/// backoff ends): what the failed fetch answered, so another replica answers the same at
/// once instead of asking the origin. The marker is `<client status>:<origin status or 0>`,
/// such as `502:503` (the origin answered 503) or `504:0` (it did not answer in time).
struct SharedBackoff: Sendable, Equatable {
    /// The client's status: 502 or 504 (503 for an origin that could not be reached).
    let status: Int
    /// What the origin answered, nil when it did not.
    let originStatus: Int?
    /// How long the backoff has left.
    let left: Duration

    init(status: Int, originStatus: Int?, left: Duration) {
        self.status = status
        self.originStatus = originStatus
        self.left = left
    }

    /// From the read script's marker and its `PTTL`; nil without a marker, or one that has no
    /// time left or cannot be read.
    init?(marker: String?, millisecondsLeft: RedisReply) {
        guard let marker, case .integer(let milliseconds) = millisecondsLeft, milliseconds > 0 else { return nil }
        let parts = marker.split(separator: ":")
        guard parts.count == 2, let status = Int(parts[0]), (500...599).contains(status), let origin = Int(parts[1]) else { return nil }
        self.init(status: status, originStatus: origin == 0 ? nil : origin, left: .milliseconds(milliseconds))
    }

    var marker: String { "\(status):\(originStatus ?? 0)" }

    /// The problem a client gets while it lasts: the failure's, as the replica that met it
    /// answered (its wording may differ).
    var error: GatewayError {
        switch (status, originStatus) {
        case (504, _): .gatewayTimeout("The origin did not answer in time.")
        case (_, let origin?) where origin >= 500: .badGateway("The origin answered \(origin).")
        case (_, 200?): .badGateway("The origin's response could not be read.")
        default: GatewayError(status: status, detail: "The origin could not be reached.")
        }
    }
}
