import Foundation

/// Any JSON value, with numbers kept exactly as `Decimal` (Foundation's `JSONDecoder` builds them
/// from the number text, not through `Double`).
///
/// Used to read client bodies loosely first, so validation can report every wrong field at
/// once instead of stopping at the first type mismatch like a typed `Decodable` would.
public enum JSONValue: Sendable, Hashable, Decodable {
    case null
    case bool(Bool)
    case number(Decimal)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Reads any value from any `Decoder` (used when an origin shape is decoded with
    /// `JSONDecoder`; the gateway's own path uses ``JSONParser``, which is much faster).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Decimal.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Parses `bytes` as one JSON value with ``JSONParser``; `nil` when they are not JSON.
    public static func parse(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONParser.parse(bytes)
    }

    /// The JSON type's name for error messages: `a string`, `a number`, ….
    package var typeDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
