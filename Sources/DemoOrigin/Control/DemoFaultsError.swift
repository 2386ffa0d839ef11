/// Why fault settings were refused.
public struct DemoFaultsError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
