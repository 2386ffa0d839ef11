import Observability

/// The gauges that read the application's state at each scrape, and the counters made at 0
/// from the start, so that every panel of `deploy/grafana/open-market-gateway.json` and every
/// rule of `deploy/prometheus/alerts.yml` finds its series on a gateway that has not yet
/// failed at anything.
///
/// The hooks hold what they read weakly: the objects hold the registry, and a strong
/// reference back would keep a stopped server's loops, sockets and open files alive.
extension GatewayMetrics {
    /// Declares the application's counters that count failures and changes: at 0 until the
    /// first one (breaker transitions and refusals, origin backoffs, sign-in's key set).
    func declareApplicationCounters(breakers: Bool, auth: Bool) {
        if breakers {
            declareCounters("gateway_origin_breaker_transitions_total", "to", ["open", "half-open", "closed"])
            declareCounters("gateway_image_host_breaker_transitions_total", "to", ["open", "half-open", "closed"])
            declareCounters("gateway_origin_breaker_refused_total", "kind", ["read", "write"])
        }
        declareCounters("gateway_origin_backoff_total", "outcome", ["started", "held"])
        if auth {
            _ = counter("gateway_auth_key_set_failures_total")
            declareCounters("gateway_auth_tokens_total", "outcome", ["verified"])
        }
    }

    /// `gateway_origin_breaker_state`: 0 closed, 1 half-open (one probe may go), 2 open
    /// (nothing is sent to the origin), read at each scrape.
    func reportOriginBreaker(_ breaker: CircuitBreaker) {
        let gauge = gauge("gateway_origin_breaker_state")
        onScrape { [weak breaker] in
            guard let breaker else { return }
            gauge.record(Self.breakerValue(breaker.state))
        }
    }

    /// `gateway_image_host_breakers_open`: how many image hosts' breakers are not closed
    /// now (open or half-open); hosts are in the log, not in labels.
    func reportImageHostBreakers(_ breakers: HostBreakers) {
        let gauge = gauge("gateway_image_host_breakers_open")
        onScrape { [weak breakers] in
            guard let breakers else { return }
            gauge.record(breakers.notClosedCount)
        }
    }

    /// The identity provider's key set: `gateway_auth_key_set_stale` (1 while the last fetch
    /// failed or none has loaded yet, else 0) and `gateway_auth_key_set_age_seconds` (since
    /// the set in use was loaded; -1 before the first load).
    func reportAuthKeys(_ keys: AuthKeys) {
        let stale = gauge("gateway_auth_key_set_stale")
        let age = gauge("gateway_auth_key_set_age_seconds")
        onScrape { [weak keys] in
            guard let keys else { return }
            stale.record(keys.status == .fresh ? 0 : 1)
            if let loaded = keys.age(now: .now) {
                age.record(Double(loaded.components.seconds) + Double(loaded.components.attoseconds) / 1e18)
            } else {
                age.record(-1)
            }
        }
    }

    private static func breakerValue(_ state: CircuitBreaker.State) -> Int {
        switch state {
        case .closed: 0
        case .halfOpen: 1
        case .open: 2
        }
    }
}
