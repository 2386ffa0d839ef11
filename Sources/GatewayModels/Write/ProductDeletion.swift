import GatewaySupport

/// A validated delete request (`DELETE /v1/products/{id}` with JSON `{"password": "…"}`).
public struct ProductDeletion: Sendable, Hashable {
    public var password: String

    public init(password: String) {
        self.password = password
    }

    /// Reads and validates the JSON body. When `limits.passwordRequired` is false an empty
    /// body is a deletion without a password (`password` empty), and so is `{}`.
    /// - Throws: ``ValidationFailure`` when the body is not an object with a non-empty
    ///   `password` (or, when none is required, a body that is not an object or whose
    ///   `password` is not 1 to 100 characters).
    public static func decode(json: [UInt8], limits: DraftLimits = DraftLimits()) throws(ValidationFailure) -> ProductDeletion {
        if json.isEmpty, !limits.passwordRequired { return ProductDeletion(password: "") }
        var reader = DraftFieldReader(input: try DraftInput.json(json), limits: limits)
        let password = reader.string("password", required: limits.passwordRequired, length: limits.password)
        guard reader.errors.isEmpty else { throw ValidationFailure(reader.errors) }
        return ProductDeletion(password: password ?? "")
    }

    /// The v1 `DELETE /item/{id}` body: `{"password": "…"}` as `application/json`.
    public func v1Body() -> OriginRequestBody {
        body(key: "password")
    }

    /// The v2 `POST /api/products/{id}/secret` and v2b `POST /api/products/{id}/archived`
    /// body: `{"secret": "…"}` (the contract's password is the vendor secret there).
    public func v2SecretBody() -> OriginRequestBody {
        body(key: "secret")
    }

    /// `{"<key>": password}` as `application/json`.
    private func body(key: String) -> OriginRequestBody {
        var writer = JSONWriter(capacity: 64)
        writer.beginObject()
        writer.key(key); writer.string(password)
        writer.endObject()
        return OriginRequestBody(json: writer)
    }
}
