/// Why the tracing settings cannot be used; the gateway refuses to start with it.
public struct TracingConfigurationError: Error, Equatable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
