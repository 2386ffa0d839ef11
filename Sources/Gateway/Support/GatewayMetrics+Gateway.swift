import CoreMetrics
import Observability

/// The application's metrics, in the process's one registry: shared rate limits and the
/// shared page tier, image renders, prefetches and placeholders, the origin's backoff and
/// circuit breakers, file reloads, and sign-in. The transport reports only its own
/// (requests, connections, origin exchanges) and knows none of these.
extension GatewayMetrics {
    /// Whether the per-client budgets are shared with the other replicas now (1) or kept per
    /// process because Redis could not be reached (0).
    package func rateLimitShared(_ shared: Bool) {
        CoreMetrics.Gauge(label: "gateway_rate_limit_shared", factory: factory).record(shared ? 1 : 0)
    }

    /// How long one read of the shared page tier took (the Redis round trip).
    package func sharedTierLatency(_ duration: Duration) {
        timer("gateway_shared_cache_read_duration_seconds").recordNanoseconds(duration.nanoseconds)
    }

    /// Counts one image render: `format` written, `outcome` `ok`, `too_many_pixels`,
    /// `timed_out`, `failed` or `busy` (refused: every worker busy); times the ones that ran.
    package func imageRender(format: String, outcome: String, duration: Duration?) {
        counter("gateway_image_renders_total", [("format", format), ("outcome", outcome)]).increment()
        if let duration {
            timer("gateway_image_render_duration_seconds", [("format", format)]).recordNanoseconds(duration.nanoseconds)
        }
    }

    /// Counts one background fetch of `kind` (`page`, `thumbnail`, `detail`): `outcome` is
    /// `made`, `skipped_full`, `skipped_origin_failing`, `used` (a client read what it
    /// fetched) or `wasted` (it left the cache unread).
    package func prefetch(_ kind: String, outcome: String) {
        counter("gateway_prefetches_total", [("kind", kind), ("outcome", outcome)]).increment()
    }

    /// Counts placeholders in answers to `include=placeholders`: `outcome` `ready` (in the
    /// answer) or `missing` (null: pending or failed); and answers that `waited` for some.
    package func placeholders(_ outcome: String, count: Int = 1) {
        guard count > 0 else { return }
        counter("gateway_placeholders_total", [("outcome", outcome)]).increment(by: Int64(count))
    }

    /// Counts an origin fetch that failed and put its key in backoff (`started`), or one not
    /// sent because its key was backing off (`held`).
    package func originBackoff(_ outcome: String) {
        counter("gateway_origin_backoff_total", [("outcome", outcome)]).increment()
    }

    /// Counts a change of the origin's circuit breaker (`to`: `open`, `half-open`, `closed`).
    package func originBreakerTransition(to state: String) {
        counter("gateway_origin_breaker_transitions_total", [("to", state)]).increment()
    }

    /// Counts a change of an image host's circuit breaker (`to`: `open`, `half-open`,
    /// `closed`); hosts are in the log, not in labels.
    package func imageHostBreakerTransition(to state: String) {
        counter("gateway_image_host_breaker_transitions_total", [("to", state)]).increment()
    }

    /// Counts a request not sent because the origin's breaker was open (`kind`: `read` or
    /// `write`).
    package func originBreakerRefused(_ kind: String) {
        counter("gateway_origin_breaker_refused_total", [("kind", kind)]).increment()
    }

    /// Counts one reload of the process's files: `files` names them (`tls`), `outcome` is `ok`
    /// or `failed` (the files in use stay).
    package func fileReload(files: String, outcome: String) {
        counter("gateway_reloads_total", [("files", files), ("outcome", outcome)]).increment()
    }

    /// Counts one failed load of the identity provider's key set (the last good one stays).
    package func authKeySetFailure() {
        counter("gateway_auth_key_set_failures_total", []).increment()
    }

    /// Counts one bearer token judged from its bytes (not from memory): `outcome` is
    /// `verified` or a rejection's reason (`expired`, `bad_signature`, …).
    package func authToken(outcome: String) {
        counter("gateway_auth_tokens_total", [("outcome", outcome)]).increment()
    }
}
