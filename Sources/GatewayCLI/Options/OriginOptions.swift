import ArgumentParser
import Foundation
import Gateway
import GatewayModels

/// The origin: where it is, which API generation it speaks, who the gateway writes as, what
/// it trusts, and the client's limits.
struct OriginOptions: ConfigurationOptions {
    static let title = "Origin"
    static let secrets = ["origin-vendor-identifier"]

    @Option(help: "Origin base URL (http or https). Without it the gateway runs on its embedded demo origin. (env: GATEWAY_ORIGIN)")
    var origin: String?

    @Option(help: "The origin's API generation: v1, v2 or v2b; the embedded demo origin runs in it too. (env: GATEWAY_ORIGIN_GENERATION)")
    var originGeneration: String = "v1"

    @Flag(help: "With the embedded demo origin (no --origin): log its access lines too, beside the gateway's. Off: only its start, stop and warnings. (env: GATEWAY_DEMO_ORIGIN_ACCESS_LOG=true)")
    var demoOriginAccessLog = false

    @Option(help: "The v2/v2b vendor identifier sent with writes; a request's Vendor-Identifier header overrides it. Never logged. (env: GATEWAY_ORIGIN_VENDOR_IDENTIFIER)")
    var originVendorIdentifier: String?

    @Option(help: "Seconds to resolve and connect to the origin. (env: GATEWAY_ORIGIN_CONNECT_TIMEOUT)")
    var originConnectTimeout: Double = 2

    @Option(help: "Seconds for a whole origin exchange; reads then answer 504 (or a stale page). (env: GATEWAY_ORIGIN_TIMEOUT)")
    var originTimeout: Double = 5

    @Option(help: "Keep-alive connections to the origin per event loop. (env: GATEWAY_ORIGIN_MAX_CONNECTIONS)")
    var originMaxConnections: Int = 32

    @Option(help: "PEM file of CAs trusted for an https origin instead of the system's. (env: GATEWAY_ORIGIN_CA_FILE)")
    var originCaFile: String?

    @Option(help: "Longest backoff, in seconds, of a page whose origin fetch failed: it is not fetched again before its backoff ends (1 s, doubling with jitter up to this); stored pages are served meanwhile and a miss is answered at once. 1 to 3600. (env: GATEWAY_ORIGIN_RETRY_MAX)")
    var originRetryMax: Double = 30

    @Option(help: "Origin failures in a row (5xx or no answer) that open its circuit breaker: then nothing is sent to the origin for --origin-breaker-open seconds; stored pages serve, the rest is answered 503 at once. 0: never on a run alone. (env: GATEWAY_ORIGIN_BREAKER_FAILURES)")
    var originBreakerFailures: Int = 5

    @Option(help: "Share of failed origin requests over --origin-breaker-window (with at least 20 requests) that opens the breaker, 0.05 to 1; 0: never on a ratio. (env: GATEWAY_ORIGIN_BREAKER_RATIO)")
    var originBreakerRatio: Double = 0.5

    @Option(help: "Seconds over which --origin-breaker-ratio is counted, 1 to 3600. (env: GATEWAY_ORIGIN_BREAKER_WINDOW)")
    var originBreakerWindow: Double = 10

    @Option(help: "Seconds the breaker stays open before one request may try the origin again (half-open), 0.1 to 3600. (env: GATEWAY_ORIGIN_BREAKER_OPEN)")
    var originBreakerOpen: Double = 5

    func validate() throws {
        if demoOriginAccessLog, origin != nil {
            throw ValidationError("--demo-origin-access-log is for the embedded demo origin, which runs only without --origin.")
        }
        if let origin {
            guard let url = URL(string: origin), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                url.host != nil
            else { throw ValidationError("--origin must be an http or https URL with a host, like https://api.example.com.") }
        }
        guard OriginGeneration(rawValue: originGeneration) != nil else {
            throw ValidationError("--origin-generation must be v1, v2 or v2b.")
        }
        if let originVendorIdentifier {
            guard !originVendorIdentifier.isEmpty, originVendorIdentifier.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw ValidationError("--origin-vendor-identifier must be visible ASCII characters.")
            }
        }
        guard originConnectTimeout > 0, originTimeout > 0 else { throw ValidationError("Origin timeouts must be positive.") }
        guard (1...1024).contains(originMaxConnections) else { throw ValidationError("--origin-max-connections must be 1 to 1024.") }
        guard (1...3600).contains(originRetryMax) else { throw ValidationError("--origin-retry-max must be 1 to 3600 seconds.") }
        guard (0...1000).contains(originBreakerFailures) else { throw ValidationError("--origin-breaker-failures must be 0 to 1000.") }
        guard originBreakerRatio == 0 || (0.05...1).contains(originBreakerRatio) else {
            throw ValidationError("--origin-breaker-ratio must be 0 (off) or 0.05 to 1.")
        }
        guard (1...3600).contains(originBreakerWindow) else { throw ValidationError("--origin-breaker-window must be 1 to 3600 seconds.") }
        guard (0.1...3600).contains(originBreakerOpen) else { throw ValidationError("--origin-breaker-open must be 0.1 to 3600 seconds.") }
    }

    func apply(to configuration: inout GatewayConfiguration) {
        configuration.origin.url = origin
        configuration.origin.generation = OriginGeneration(rawValue: originGeneration) ?? .v1
        configuration.origin.vendorIdentifier = originVendorIdentifier
        configuration.origin.client.connectTimeout = .seconds(originConnectTimeout)
        configuration.origin.client.requestTimeout = .seconds(originTimeout)
        configuration.origin.client.maxConnectionsPerLoop = originMaxConnections
        configuration.origin.caFile = originCaFile
        configuration.origin.retryMax = .milliseconds(Int64(originRetryMax * 1000))
        configuration.origin.breaker.failures = originBreakerFailures
        configuration.origin.breaker.ratio = originBreakerRatio == 0 ? 2 : originBreakerRatio
        configuration.origin.breaker.window = .milliseconds(Int64(originBreakerWindow * 1000))
        configuration.origin.breaker.openFor = .milliseconds(Int64(originBreakerOpen * 1000))
        // Image hosts are resolved within the origin's connect time.
        configuration.images.resolveTimeout = .seconds(originConnectTimeout)
    }
}
