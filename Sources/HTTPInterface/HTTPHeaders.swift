import GatewaySupport
import HTTPCodec

/// An ordered list of header fields with case-insensitive lookup.
///
/// Order and duplicates are kept as received, because the request-framing checks must see
/// a duplicated `Content-Length` as two fields, not one.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    private var fields: [Field]

    public init() { fields = [] }

    public init(_ pairs: [(String, String)]) {
        fields = pairs.map { Field(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    public var count: Int { fields.count }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The first value of `name`, compared case-insensitively.
    public subscript(name: String) -> String? {
        fields.first { Self.sameName($0.name, name) }?.value
    }

    /// Every value of `name`, in order.
    public func values(_ name: String) -> [String] {
        fields.compactMap { Self.sameName($0.name, name) ? $0.value : nil }
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { Self.sameName($0.name, name) }
    }

    /// Appends a field; an existing field of the same name stays.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field of `name` with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append(Field(name: name, value: value))
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { Self.sameName($0.name, name) }
    }

    /// Adds `token` to a comma-separated list header such as `Vary`, unless already there.
    public mutating func appendToken(_ name: String, _ token: String) {
        guard let existing = self[name] else {
            add(name, token)
            return
        }
        if Self.listContains(existing, token) { return }
        set(name, existing + ", " + token)
    }

    /// Whether the comma-separated `list` has `token` as one of its elements (ASCII case
    /// insensitive, spaces around elements ignored), without allocating.
    package static func listContains(_ list: String, _ token: String) -> Bool {
        var list = list
        var token = token
        return list.withUTF8 { items in
            token.withUTF8 { wanted in
                // Stopped: an element matched.
                !HTTPSyntax.forEachListElement(in: UnsafeRawBufferPointer(items)) { element in
                    !equalIgnoringASCIICase(UnsafeBufferPointer(rebasing: items[element.lowerBound..<element.upperBound]), wanted)
                }
            }
        }
    }

    /// ASCII case-insensitive equality, without allocating (header names are ASCII tokens).
    package static func sameName(_ a: String, _ b: String) -> Bool {
        guard a.utf8.count == b.utf8.count else { return false }
        var a = a
        var b = b
        return a.withUTF8 { x in b.withUTF8 { y in equalIgnoringASCIICase(x, y) } }
    }

    package static func equalIgnoringASCIICase(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
        guard x.count == y.count else { return false }
        for index in 0..<x.count {
            let a = x[index]
            let b = y[index]
            if a == b { continue }
            let folded = a | 0x20
            guard folded == b | 0x20, folded >= UInt8(ascii: "a"), folded <= UInt8(ascii: "z") else { return false }
        }
        return true
    }
}
