/// One problem with one field of a client's input.
///
/// Validation collects every `FieldError` it finds instead of stopping at the first, so a
/// client sees all of them at once in the `errors` member of a problem+json body.
public struct FieldError: Sendable, Hashable, Codable {
    /// The client-facing name of the field, in the contract's camelCase (`price`,
    /// `images[2]`, `discountedPrice`).
    public var field: String
    /// A sentence for people: what is wrong and, where it helps, what is allowed.
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }
}
