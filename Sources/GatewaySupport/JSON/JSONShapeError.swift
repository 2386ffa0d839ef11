/// A JSON document that does not have the expected shape: which member, and what was wrong.
public struct JSONShapeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `$.items[3].price`.
    public let path: String
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}
