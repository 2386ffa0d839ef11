import Foundation

/// Typed, lenient reads of one JSON object's members, for the origin shapes.
///
/// Lenient where the origin varies: a number may arrive as `2000`, `2000.0`, `1.23123123E8` or
/// a numeric string (strict number grammar); an integer may arrive as `3.0`. `null` counts as
/// absent. Everything else must have the expected type, or the read throws a
/// ``JSONShapeError`` naming the member's path.
public struct JSONObjectReader: Sendable {
    /// The members.
    public let members: [String: JSONValue]
    /// Where this object sits, for error messages (`$.pages[3]`).
    public let path: String

    /// A reader for `value`, which must be an object.
    /// - Throws: ``JSONShapeError`` when it is not.
    public init(_ value: JSONValue, path: String = "$") throws(JSONShapeError) {
        guard case .object(let members) = value else { throw JSONShapeError(path: path, reason: "expected an object") }
        self.members = members
        self.path = path
    }

    private func member(_ key: String) -> JSONValue? {
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    private func required<T>(_ key: String, _ read: (String) throws(JSONShapeError) -> T?) throws(JSONShapeError) -> T {
        guard let value = try read(key) else { throw JSONShapeError(path: "\(path).\(key)", reason: "missing") }
        return value
    }

    private func mismatch(_ key: String, _ expected: String) -> JSONShapeError {
        JSONShapeError(path: "\(path).\(key)", reason: "expected \(expected)")
    }

    public func stringIfPresent(_ key: String) throws(JSONShapeError) -> String? {
        guard let value = member(key) else { return nil }
        guard case .string(let string) = value else { throw mismatch(key, "a string") }
        return string
    }

    public func string(_ key: String) throws(JSONShapeError) -> String {
        try required(key, stringIfPresent)
    }

    public func decimalIfPresent(_ key: String) throws(JSONShapeError) -> Decimal? {
        switch member(key) {
        case nil: return nil
        case .number(let number)?:
            guard !number.isNaN else { throw mismatch(key, "a number in range") }
            return number
        case .string(let text)?:
            guard let number = DecimalText.parse(text) else { throw mismatch(key, "a number") }
            return number
        default: throw mismatch(key, "a number")
        }
    }

    public func decimal(_ key: String) throws(JSONShapeError) -> Decimal {
        try required(key, decimalIfPresent)
    }

    public func int64IfPresent(_ key: String) throws(JSONShapeError) -> Int64? {
        guard let number = try decimalIfPresent(key) else { return nil }
        guard let integer = DecimalText.int64(number) else { throw mismatch(key, "a 64-bit integer") }
        return integer
    }

    public func int64(_ key: String) throws(JSONShapeError) -> Int64 {
        try required(key, int64IfPresent)
    }

    public func intIfPresent(_ key: String) throws(JSONShapeError) -> Int? {
        try int64IfPresent(key).map { Int($0) }
    }

    public func boolIfPresent(_ key: String) throws(JSONShapeError) -> Bool? {
        guard let value = member(key) else { return nil }
        guard case .bool(let bool) = value else { throw mismatch(key, "a boolean") }
        return bool
    }

    public func stringsIfPresent(_ key: String) throws(JSONShapeError) -> [String]? {
        guard let value = member(key) else { return nil }
        guard case .array(let elements) = value else { throw mismatch(key, "an array of strings") }
        var strings: [String] = []
        strings.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let string) = element else { throw mismatch(key, "an array of strings") }
            strings.append(string)
        }
        return strings
    }

    /// An array of objects, each read by `make`.
    public func objectsIfPresent<T>(_ key: String, _ make: (JSONObjectReader) throws(JSONShapeError) -> T) throws(JSONShapeError) -> [T]? {
        guard let value = member(key) else { return nil }
        guard case .array(let elements) = value else { throw mismatch(key, "an array") }
        var results: [T] = []
        results.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            results.append(try make(try JSONObjectReader(element, path: "\(path).\(key)[\(index)]")))
        }
        return results
    }

    /// A nested object read by `make`; nil when the key is absent or `null`.
    public func objectIfPresent<T>(_ key: String, _ make: (JSONObjectReader) throws(JSONShapeError) -> T) throws(JSONShapeError) -> T? {
        guard let value = member(key) else { return nil }
        return try make(try JSONObjectReader(value, path: "\(path).\(key)"))
    }

    public func objects<T>(_ key: String, _ make: (JSONObjectReader) throws(JSONShapeError) -> T) throws(JSONShapeError) -> [T] {
        guard let results = try objectsIfPresent(key, make) else { throw JSONShapeError(path: "\(path).\(key)", reason: "missing") }
        return results
    }
}
