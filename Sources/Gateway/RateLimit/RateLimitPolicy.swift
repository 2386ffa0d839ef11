import GatewayModels
import HTTPCodec
import HTTPInterface

/// Which budget a request spends: the three named policies of `RateLimit-Policy`.
enum RateLimitKind: Int, CaseIterable, Sendable {
    case reads, writes, images

    var name: String {
        switch self {
        case .reads: "reads"
        case .writes: "writes"
        case .images: "images"
        }
    }
}

/// One named budget and its header bytes, made once (draft-ietf-httpapi-ratelimit-headers,
/// named-policy form): `RateLimit-Policy: "reads";q=600;w=60` and
/// `RateLimit: "reads";r=12;t=1`.
struct RateLimitPolicy: Sendable {
    let kind: RateLimitKind
    let rule: RateRule
    /// The `RateLimit-Policy` field in both forms.
    let policyField: StoredFields
    /// `"reads";r=`; then `r`, `;t=` and `t`.
    let rateValuePrefix: [UInt8]
    /// `"reads";q=600;w=60`.
    let policyValue: String

    init(kind: RateLimitKind, rule: RateRule) {
        self.kind = kind
        self.rule = rule
        policyValue = Self.policyValue(kind, rule)
        policyField = StoredFields(fields: [("RateLimit-Policy", policyValue)])
        rateValuePrefix = Array("\"\(kind.name)\";r=".utf8)
    }

    /// `"reads";q=600;w=60`.
    static func policyValue(_ kind: RateLimitKind, _ rule: RateRule) -> String {
        "\"\(kind.name)\";q=\(rule.quota);w=\(rule.windowSeconds)"
    }

    /// What `decision` puts on the answer. Copies no bytes.
    func fields(_ decision: CellRate.Decision) -> RateLimitFields {
        RateLimitFields(
            policyName: kind.name, policyValue: policyValue, policyField: policyField, rateValuePrefix: rateValuePrefix, allowed: decision.allowed,
            remaining: decision.remaining, resetSeconds: decision.resetSeconds, retryAfterSeconds: decision.retryAfterSeconds)
    }
}
