import ArgumentParser
import Gateway
import GatewayModels
import GatewaySupport

/// Per-client budgets, and how the client is told apart behind proxies.
struct RateLimitOptions: ConfigurationOptions {
    static let title = "Rate limits"
    @Option(help: "Per-client budget of product reads (GET and HEAD on /v1/products…), N/s, N/m or N/h, e.g. 600/m. Off by default. (env: GATEWAY_RATE_LIMIT_READS)")
    var rateLimitReads: String?

    @Option(help: "Per-client budget of product writes (POST, PATCH, DELETE on /v1/products…), N/s, N/m or N/h, e.g. 30/m. Off by default. (env: GATEWAY_RATE_LIMIT_WRITES)")
    var rateLimitWrites: String?

    @Option(help: "Per-client budget of images (/v1/images/…), N/s, N/m or N/h; a scrolled list page brings 20 thumbnails. Off by default. (env: GATEWAY_RATE_LIMIT_IMAGES)")
    var rateLimitImages: String?

    @Option(help: "Requests a rested client may send at once beyond each budget's quota. (env: GATEWAY_RATE_LIMIT_BURST)")
    var rateLimitBurst: Int = 0

    @Option(help: "Comma-separated addresses and CIDR ranges of proxies whose X-Forwarded-For (and --rate-limit-key-header) is believed. (env: GATEWAY_TRUSTED_PROXIES)")
    var trustedProxies: String?

    @Option(help: "A header a trusted proxy sets to name the client, for rate limits (many phones share one carrier address). (env: GATEWAY_RATE_LIMIT_KEY_HEADER)")
    var rateLimitKeyHeader: String?

    @Option(help: "What a budget belongs to: address (the client's address, or --rate-limit-key-header) or subject (a verified bearer token's user; requests without one as by address). subject needs --auth-issuer. (env: GATEWAY_RATE_LIMIT_KEY)")
    var rateLimitKey: String = "address"

    func validate() throws {
        guard ["address", "subject"].contains(rateLimitKey) else { throw ValidationError("--rate-limit-key must be address or subject.") }
        for (flag, value) in [("--rate-limit-reads", rateLimitReads), ("--rate-limit-writes", rateLimitWrites), ("--rate-limit-images", rateLimitImages)] {
            guard let value else { continue }
            guard RateRule(parsing: value) != nil else {
                throw ValidationError("\(flag) must be N/s, N/m or N/h with N from 1 to 1000000, like 600/m.")
            }
        }
        guard (0...1_000_000).contains(rateLimitBurst) else { throw ValidationError("--rate-limit-burst must be 0 to 1000000.") }
        if let trustedProxies, AddressRanges(parsing: trustedProxies) == nil {
            throw ValidationError("--trusted-proxies must be comma-separated IP addresses or CIDR ranges, like 10.0.0.0/8,2001:db8::/32.")
        }
        if let rateLimitKeyHeader {
            guard !rateLimitKeyHeader.isEmpty, rateLimitKeyHeader.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw ValidationError("--rate-limit-key-header must be a header name.")
            }
            guard trustedProxies != nil else {
                throw ValidationError("--rate-limit-key-header needs --trusted-proxies: only a trusted proxy's header is believed.")
            }
        }
    }

    func apply(to configuration: inout GatewayConfiguration) {
        configuration.rateLimits.reads = rateLimitReads.flatMap { RateRule(parsing: $0, burst: rateLimitBurst) }
        configuration.rateLimits.writes = rateLimitWrites.flatMap { RateRule(parsing: $0, burst: rateLimitBurst) }
        configuration.rateLimits.images = rateLimitImages.flatMap { RateRule(parsing: $0, burst: rateLimitBurst) }
        configuration.rateLimits.trustedProxies = trustedProxies.flatMap { AddressRanges(parsing: $0) } ?? .none
        configuration.rateLimits.keyHeader = rateLimitKeyHeader
        configuration.rateLimits.keyBySubject = rateLimitKey == "subject"
    }
}
