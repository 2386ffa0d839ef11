import HTTPCodec

/// What one request's rate-limit budget says on its answer (draft-ietf-httpapi-ratelimit-
/// headers, named-policy form): `RateLimit-Policy: "reads";q=600;w=60` and
/// `RateLimit: "reads";r=12;t=1`, and whether the request was allowed.
///
/// Made by the application when it classifies a request; the transport puts the fields on
/// whatever answers the request, stored or routed. Copying it copies no bytes (the arrays
/// are the policy's, made once).
public struct RateLimitFields: Sendable {
    /// The policy's name (`reads`), for metrics.
    public let policyName: String
    /// `"reads";q=600;w=60`.
    public let policyValue: String
    /// The whole `RateLimit-Policy` line with its CRLF.
    public let policyLine: [UInt8]
    /// `RateLimit: "reads";r=`: then `remaining`, `;t=`, `resetSeconds` and CRLF.
    public let ratePrefix: [UInt8]
    public let allowed: Bool
    public let remaining: Int
    public let resetSeconds: Int
    /// When refused: how long until a request would be allowed.
    public let retryAfterSeconds: Int

    public init(
        policyName: String, policyValue: String, policyLine: [UInt8], ratePrefix: [UInt8], allowed: Bool, remaining: Int, resetSeconds: Int,
        retryAfterSeconds: Int
    ) {
        self.policyName = policyName
        self.policyValue = policyValue
        self.policyLine = policyLine
        self.ratePrefix = ratePrefix
        self.allowed = allowed
        self.remaining = remaining
        self.resetSeconds = resetSeconds
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// `"reads";r=12;t=1`.
    public var rateValue: String { "\"\(policyName)\";r=\(remaining);t=\(resetSeconds)" }

    private static let resetInfix: [UInt8] = Array(";t=".utf8)

    /// Appends both field lines to a response head. Allocates nothing once `head` has room.
    public func append(to head: inout [UInt8]) {
        head.append(contentsOf: policyLine)
        head.append(contentsOf: ratePrefix)
        ResponseHeadWriter.appendDecimal(remaining, to: &head)
        head.append(contentsOf: Self.resetInfix)
        ResponseHeadWriter.appendDecimal(resetSeconds, to: &head)
        head.append(contentsOf: ResponseHeadWriter.crlf)
    }

    /// Sets both fields on a routed answer.
    public func set(on response: inout GatewayResponse) {
        response.headers.set("RateLimit-Policy", policyValue)
        response.headers.set("RateLimit", rateValue)
    }
}
