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
    /// The `RateLimit-Policy` field in both forms.
    public let policyField: StoredFields
    /// `"reads";r=`: the `RateLimit` value then goes on with `remaining`, `;t=` and
    /// `resetSeconds`.
    public let rateValuePrefix: [UInt8]
    public let allowed: Bool
    public let remaining: Int
    public let resetSeconds: Int
    /// When refused: how long until a request would be allowed.
    public let retryAfterSeconds: Int

    public init(
        policyName: String, policyValue: String, policyField: StoredFields, rateValuePrefix: [UInt8], allowed: Bool, remaining: Int, resetSeconds: Int,
        retryAfterSeconds: Int
    ) {
        self.policyName = policyName
        self.policyValue = policyValue
        self.policyField = policyField
        self.rateValuePrefix = rateValuePrefix
        self.allowed = allowed
        self.remaining = remaining
        self.resetSeconds = resetSeconds
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// `"reads";r=12;t=1`.
    public var rateValue: String { "\"\(policyName)\";r=\(remaining);t=\(resetSeconds)" }

    private static let resetInfix: [UInt8] = Array(";t=".utf8)
    private static let rateName = StoredFieldName("RateLimit")

    /// Appends both fields to a stored answer, in its form. Allocates nothing once the head
    /// has room.
    public func append(to answer: inout StoredAnswer) {
        answer.append(policyField)
        answer.beginField(Self.rateName)
        answer.appendValue(rateValuePrefix)
        answer.appendValueDecimal(remaining)
        answer.appendValue(Self.resetInfix)
        answer.appendValueDecimal(resetSeconds)
        answer.endField()
    }

    /// Sets both fields on a routed answer.
    public func set(on response: inout GatewayResponse) {
        response.headers.set("RateLimit-Policy", policyValue)
        response.headers.set("RateLimit", rateValue)
    }
}
