import Testing

@testable import Tracing

@Suite struct ExportRetryTests {
    @Test func successEndsAndOtherAnswersDrop() {
        var retry = ExportRetry(deadline: .seconds(30))
        #expect(retry.decide(.exported, sinceFirstAttempt: .zero, jitter: 0.5) == .done)
        var refused = ExportRetry(deadline: .seconds(30))
        #expect(refused.decide(.status(400, retryAfter: nil), sinceFirstAttempt: .zero, jitter: 0.5) == .drop("the collector answered 400"))
        var missing = ExportRetry(deadline: .seconds(30))
        #expect(missing.decide(.status(404, retryAfter: 5), sinceFirstAttempt: .zero, jitter: 0.5) == .drop("the collector answered 404"))
    }

    @Test func throttlingAndUnreachableCollectorsAreRetriedWithBackoff() {
        var retry = ExportRetry(deadline: .seconds(100))
        #expect(retry.decide(.status(503, retryAfter: nil), sinceFirstAttempt: .zero, jitter: 0.5) == .retry(after: .seconds(1)))
        #expect(retry.decide(.unreachable, sinceFirstAttempt: .seconds(1), jitter: 0.5) == .retry(after: .seconds(2)))
        #expect(retry.decide(.status(429, retryAfter: nil), sinceFirstAttempt: .seconds(3), jitter: 0.5) == .retry(after: .seconds(4)))
        #expect(retry.decide(.status(502, retryAfter: nil), sinceFirstAttempt: .seconds(7), jitter: 0) == .retry(after: .seconds(6)))
        #expect(retry.decide(.status(504, retryAfter: nil), sinceFirstAttempt: .seconds(13), jitter: 1) == .retry(after: .seconds(20)))
        #expect(retry.attempts == 5)
    }

    @Test func retryAfterIsTheLeastWait() {
        var retry = ExportRetry(deadline: .seconds(30))
        #expect(retry.decide(.status(429, retryAfter: 7), sinceFirstAttempt: .zero, jitter: 0.5) == .retry(after: .seconds(7)))
        #expect(retry.decide(.status(503, retryAfter: 0), sinceFirstAttempt: .seconds(7), jitter: 0.5) == .retry(after: .seconds(2)))
    }

    @Test func retriesEndAtTheExportDeadline() {
        var retry = ExportRetry(deadline: .seconds(10))
        #expect(
            retry.decide(.status(503, retryAfter: 60), sinceFirstAttempt: .zero, jitter: 0.5)
                == .drop("the collector answered 503; retries would outlast the export timeout"))
        var late = ExportRetry(deadline: .seconds(10))
        #expect(
            late.decide(.unreachable, sinceFirstAttempt: .seconds(9), jitter: 0.5)
                == .drop("the collector could not be reached; retries would outlast the export timeout"))
    }
}
