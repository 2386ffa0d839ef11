/// A failure to set up the transport: resolving, binding, or creating libevent objects.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    public let description: String

    package init(_ description: String) {
        self.description = description
    }
}
