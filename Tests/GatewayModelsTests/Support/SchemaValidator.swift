import Foundation
import GatewayModels
import GatewaySupport

/// Validates JSON instances against the JSON Schema subset `openapi.yaml` uses: `$ref` (local),
/// `type` (one or a list, with `null`), `properties`, `required`, `additionalProperties: false`,
/// `items`, `minItems`/`maxItems`, `minimum`/`maximum`, `minLength`/`maxLength`, `pattern`,
/// `enum`, `const`. Annotations (`description`, `format`, `examples`, `content*`) are ignored,
/// as JSON Schema 2020-12 does by default. Any other keyword is reported as unsupported, so a
/// schema can never pass by using something this validator skips.
struct SchemaValidator {
    /// The whole OpenAPI document, as Yams loaded it.
    let document: [String: Any]

    private static let annotations: Set<String> = [
        "description", "format", "examples", "contentEncoding", "contentMediaType", "default", "title",
    ]
    private static let assertions: Set<String> = [
        "$ref", "type", "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
        "minimum", "maximum", "minLength", "maxLength", "pattern", "enum", "const",
    ]

    /// The errors for `instance` against `#/components/schemas/<name>`; empty when valid.
    func validate(_ instance: JSONValue, schemaNamed name: String) -> [String] {
        validate(instance, against: ["$ref": "#/components/schemas/\(name)"], at: "$")
    }

    func validate(_ instance: JSONValue, against schema: [String: Any], at path: String) -> [String] {
        var errors: [String] = []
        for key in schema.keys where !Self.annotations.contains(key) && !Self.assertions.contains(key) {
            errors.append("\(path): unsupported keyword \(key)")
        }
        if let ref = schema["$ref"] as? String {
            guard let target = resolve(ref) else { return errors + ["\(path): unresolvable \(ref)"] }
            errors += validate(instance, against: target, at: path)
        }
        if let type = schema["type"] {
            let allowed = (type as? [Any])?.compactMap { $0 as? String } ?? [type as? String].compactMap { $0 }
            if !allowed.contains(where: { Self.matches(instance, type: $0) }) {
                errors.append("\(path): expected \(allowed), got \(instance)")
                return errors
            }
        }
        if let values = schema["enum"] as? [Any], !values.contains(where: { Self.equals(instance, $0) }) {
            errors.append("\(path): not one of \(values)")
        }
        if let value = schema["const"], !Self.equals(instance, value) {
            errors.append("\(path): not \(value)")
        }
        switch instance {
        case .object(let object):
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                errors.append("\(path): missing required \(name)")
            }
            for (name, value) in object {
                if let property = properties[name] as? [String: Any] {
                    errors += validate(value, against: property, at: "\(path).\(name)")
                } else if schema["additionalProperties"] as? Bool == false {
                    errors.append("\(path): unexpected property \(name)")
                }
            }
        case .array(let items):
            if let min = schema["minItems"] as? Int, items.count < min { errors.append("\(path): fewer than \(min) items") }
            if let max = schema["maxItems"] as? Int, items.count > max { errors.append("\(path): more than \(max) items") }
            if let itemSchema = schema["items"] as? [String: Any] {
                for (index, item) in items.enumerated() {
                    errors += validate(item, against: itemSchema, at: "\(path)[\(index)]")
                }
            }
        case .number(let number):
            if let min = Self.decimal(schema["minimum"]), number < min { errors.append("\(path): below \(min)") }
            if let max = Self.decimal(schema["maximum"]), number > max { errors.append("\(path): above \(max)") }
        case .string(let string):
            if let min = schema["minLength"] as? Int, string.count < min { errors.append("\(path): shorter than \(min)") }
            if let max = schema["maxLength"] as? Int, string.count > max { errors.append("\(path): longer than \(max)") }
            if let pattern = schema["pattern"] as? String {
                let regex = try! NSRegularExpression(pattern: pattern)
                if regex.firstMatch(in: string, range: NSRange(string.startIndex..., in: string)) == nil {
                    errors.append("\(path): \"\(string)\" does not match \(pattern)")
                }
            }
        case .null, .bool:
            break
        }
        return errors
    }

    private func resolve(_ ref: String) -> [String: Any]? {
        guard ref.hasPrefix("#/") else { return nil }
        var node: Any = document
        for component in ref.dropFirst(2).split(separator: "/") {
            guard let object = node as? [String: Any], let next = object[String(component)] else { return nil }
            node = next
        }
        return node as? [String: Any]
    }

    private static func matches(_ instance: JSONValue, type: String) -> Bool {
        switch (instance, type) {
        case (.null, "null"), (.bool, "boolean"), (.string, "string"), (.array, "array"), (.object, "object"), (.number, "number"):
            return true
        case (.number(let value), "integer"):
            return DecimalText.int64(value) != nil
        default:
            return false
        }
    }

    private static func decimal(_ value: Any?) -> Decimal? {
        if let int = value as? Int { return Decimal(int) }
        if let double = value as? Double { return Decimal(string: String(double)) }
        return nil
    }

    private static func equals(_ instance: JSONValue, _ value: Any) -> Bool {
        switch instance {
        case .string(let string): return (value as? String) == string
        case .bool(let bool): return (value as? Bool) == bool
        case .number(let number): return decimal(value) == number
        default: return false
        }
    }
}
