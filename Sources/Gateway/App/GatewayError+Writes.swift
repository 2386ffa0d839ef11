import HTTPInterface

extension GatewayError {
    /// A write that reached the origin but got no readable answer (a time-out, a connection
    /// lost after the request was sent, an unreadable response): whether it took effect is
    /// unknown. One problem `type` whatever the status (504 for a time-out, else 502), so a
    /// client knows a blind retry is not safe without `Idempotency-Key`.
    public static func outcomeUnknown(_ failure: OriginFailure) -> GatewayError {
        GatewayError(
            status: failure == .timedOut ? 504 : 502, type: typePrefix + "outcome-unknown", title: "Outcome unknown",
            detail: "\(failure.gatewayError.detail) Whether the change was made is unknown: check the product before trying again, "
                + "or retry with the same Idempotency-Key.")
    }
}
