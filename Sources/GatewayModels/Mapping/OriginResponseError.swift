/// An origin response that could not be read as its generation's shape: not JSON, a missing
/// or mistyped member, an unreadable date. The gateway answers such a response with 502.
public struct OriginResponseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The generation whose shape was expected.
    public let generation: OriginGeneration
    /// What was wrong, for logs (not for clients).
    public let reason: String

    public init(generation: OriginGeneration, reason: String) {
        self.generation = generation
        self.reason = reason
    }

    public var description: String { "OriginResponseError(\(generation.rawValue)): \(reason)" }
}
