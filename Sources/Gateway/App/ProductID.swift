import GatewayModels
import HTTPInterface
import Routing
import GatewaySupport

/// The `{id}` of `/v1/products/{id}`: a positive 64-bit integer in plain digits.
enum ProductID {
    /// The id in `context`'s path parameters, or nil when it is not one.
    static func parse(_ context: RouteContext) -> Int64? {
        guard let text = context.parameters["id"], text.first != "+", let id = Int64(text), id > 0 else { return nil }
        return id
    }

    /// The same rule on the raw path segment (no decoding needed for digits).
    static func parse(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard !bytes.isEmpty else { return nil }
        var id: Int64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflow) = id.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow, !overflow2 else { return nil }
            id = sum
        }
        return id > 0 ? id : nil
    }

    /// The answer to an id that is not one; nothing is sent to the origin.
    static let invalid = GatewayError.invalidFields([invalidField])
    static let invalidField = FieldError(field: "id", message: "must be a positive whole number.")
}
