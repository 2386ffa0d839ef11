/// What the exporter does after one attempt to send a batch, as the OTLP/HTTP specification
/// asks: success ends it; 429, 502, 503 and 504, and a connection that failed or timed out,
/// are retried with exponential backoff (1 s, 2 s, 4 s … at most 32 s, a quarter either way
/// at random), waiting at least what `Retry-After` says; any other answer drops the batch.
/// A batch is dropped, too, once its retries would end after the export deadline
/// (`OTEL_BSP_EXPORT_TIMEOUT` from its first attempt). Pure: the exporter feeds it outcomes
/// and times.
public struct ExportRetry: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        case exported
        /// An HTTP answer that is not a success; `retryAfter` is its `Retry-After` in seconds.
        case status(Int, retryAfter: Int?)
        /// No answer: the connection failed or the request timed out.
        case unreachable
    }

    public enum Decision: Sendable, Equatable {
        case done
        case retry(after: Duration)
        /// Given up; the reason, for the log and the failure counter.
        case drop(String)
    }

    public let deadline: Duration
    public private(set) var attempts = 0
    /// Time since the batch's first attempt began.
    private var elapsed: Duration = .zero

    public init(deadline: Duration) {
        self.deadline = deadline
    }

    /// The outcome of an attempt that began `sinceFirstAttempt` after the first one began
    /// and took until now; `jitter` is a random number from 0 to 1.
    public mutating func decide(_ outcome: Outcome, sinceFirstAttempt: Duration, jitter: Double) -> Decision {
        attempts += 1
        elapsed = sinceFirstAttempt
        let reason: String
        var floor: Duration = .zero
        switch outcome {
        case .exported:
            return .done
        case .status(let status, let retryAfter):
            guard [429, 502, 503, 504].contains(status) else { return .drop("the collector answered \(status)") }
            reason = "the collector answered \(status)"
            if let retryAfter { floor = .seconds(max(0, retryAfter)) }
        case .unreachable:
            reason = "the collector could not be reached"
        }
        let base = Duration.seconds(1 << min(attempts - 1, 5))
        let jittered = base * (0.75 + 0.5 * min(max(jitter, 0), 1))
        let wait = max(jittered, floor)
        guard elapsed + wait < deadline else { return .drop(reason + "; retries would outlast the export timeout") }
        return .retry(after: wait)
    }
}
