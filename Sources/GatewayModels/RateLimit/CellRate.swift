/// The generic cell rate algorithm (GCRA, ITU-T I.371) on one client's theoretical arrival
/// time (TAT): the time, in nanoseconds of a monotonic clock, at which the client's budget
/// is full again. A request is allowed when, after it, the budget is not over `capacity`;
/// an allowed request moves the TAT one interval on, a refused one leaves it. Pure: the
/// caller keeps the TAT per client.
public enum CellRate {
    /// What one request gets.
    public struct Decision: Sendable, Equatable {
        public var allowed: Bool
        /// Requests the client may still send at once after this one (`RateLimit` `r`).
        public var remaining: Int
        /// Whole seconds, rounded up, until the budget is full again (`RateLimit` `t`).
        public var resetSeconds: Int
        /// Refused: whole seconds, rounded up and at least 1, until one request is allowed
        /// (`Retry-After`); 0 when allowed.
        public var retryAfterSeconds: Int
        /// The client's TAT after this request.
        public var arrival: Int64

        public init(allowed: Bool, remaining: Int, resetSeconds: Int, retryAfterSeconds: Int, arrival: Int64) {
            self.allowed = allowed
            self.remaining = remaining
            self.resetSeconds = resetSeconds
            self.retryAfterSeconds = retryAfterSeconds
            self.arrival = arrival
        }
    }

    /// Decides one request at `now` for a client whose TAT is `arrival` (0 or any time in the
    /// past for a client not seen, or rested).
    public static func decide(arrival: Int64, now: Int64, rule: RateRule) -> Decision {
        let interval = rule.interval
        let full = interval * Int64(rule.capacity)
        let start = max(arrival, now)
        let next = start + interval
        if next - now > full {
            // Over: the next request fits once the TAT is back within the budget.
            let wait = next - full - now
            return Decision(
                allowed: false, remaining: 0, resetSeconds: seconds(start - now), retryAfterSeconds: max(1, seconds(wait)),
                arrival: start)
        }
        let remaining = Int((full - (next - now)) / interval)
        return Decision(allowed: true, remaining: remaining, resetSeconds: seconds(next - now), retryAfterSeconds: 0, arrival: next)
    }

    /// Nanoseconds as whole seconds, rounded up.
    static func seconds(_ nanoseconds: Int64) -> Int {
        nanoseconds <= 0 ? 0 : Int((nanoseconds + 999_999_999) / 1_000_000_000)
    }

    /// A TAT that `decide` would treat as a rested client at `now`: entries at or before it
    /// can be forgotten.
    public static func isRested(arrival: Int64, now: Int64) -> Bool { arrival <= now }
}
