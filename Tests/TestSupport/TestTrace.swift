/// A fixed W3C trace context for tests that compare whole problem bodies: the gateway keeps
/// the trace id of a valid `traceparent` and puts it in every problem as `traceId`.
public enum TestTrace {
    public static let id = "4bf92f3577b34da6a3ce929d0e0e4736"
    /// The header line to send.
    public static let header = "traceparent: 00-\(id)-00f067aa0ba902b7-01"
}
