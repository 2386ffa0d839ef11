import GatewaySupport

/// A client's input was rejected: every problem found, not just the first.
///
/// The gateway answers with 422 (or 400 for a body that is not JSON/multipart at all) and puts
/// ``errors`` in the problem+json `errors` member.
public struct ValidationFailure: Error, Sendable, Hashable {
    /// At least one error, in field order.
    public var errors: [FieldError]

    public init(_ errors: [FieldError]) {
        self.errors = errors
    }
}
