import GatewayModels

/// The `{id}` of `/v1/products/{id}`: a positive 64-bit integer in plain digits.
enum ProductID {
    /// The id in `context`'s path parameters, or nil when it is not one.
    static func parse(_ context: RouteContext) -> Int64? {
        guard let text = context.parameters["id"], text.first != "+", let id = Int64(text), id > 0 else { return nil }
        return id
    }

    /// The answer to an id that is not one; nothing is sent to the origin.
    static let invalid = GatewayError.invalidFields([FieldError(field: "id", message: "must be a positive whole number.")])
}
