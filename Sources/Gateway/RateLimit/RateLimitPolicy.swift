import GatewayModels
import HTTPCodec

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
    /// The whole `RateLimit-Policy` line with its CRLF.
    let policyLine: [UInt8]
    /// `RateLimit: "reads";r=`; then `r`, ``resetInfix``, `t` and CRLF.
    let ratePrefix: [UInt8]
    static let resetInfix: [UInt8] = Array(";t=".utf8)

    init(kind: RateLimitKind, rule: RateRule) {
        self.kind = kind
        self.rule = rule
        policyLine = Array("RateLimit-Policy: \(Self.policyValue(kind, rule))\r\n".utf8)
        ratePrefix = Array("RateLimit: \"\(kind.name)\";r=".utf8)
    }

    /// `"reads";q=600;w=60`.
    static func policyValue(_ kind: RateLimitKind, _ rule: RateRule) -> String {
        "\"\(kind.name)\";q=\(rule.quota);w=\(rule.windowSeconds)"
    }

    var policyValue: String { Self.policyValue(kind, rule) }

    /// `"reads";r=12;t=1`.
    func rateValue(_ decision: CellRate.Decision) -> String {
        "\"\(kind.name)\";r=\(decision.remaining);t=\(decision.resetSeconds)"
    }

    /// Appends both header lines for `decision` to a response head.
    func append(_ decision: CellRate.Decision, to head: inout [UInt8]) {
        head.append(contentsOf: policyLine)
        head.append(contentsOf: ratePrefix)
        ResponseHeadWriter.appendDecimal(decision.remaining, to: &head)
        head.append(contentsOf: Self.resetInfix)
        ResponseHeadWriter.appendDecimal(decision.resetSeconds, to: &head)
        head.append(contentsOf: ResponseHeadWriter.crlf)
    }
}
