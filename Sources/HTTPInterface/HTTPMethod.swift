/// The request methods the gateway routes. libevent is told to pass every one of these to
/// the router (its default answers PATCH and OPTIONS with 501); the router answers 405
/// with `Allow` where a path does not take the method.
public enum HTTPMethod: String, Sendable, Hashable, CaseIterable {
    case get = "GET"
    case head = "HEAD"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case delete = "DELETE"
    case options = "OPTIONS"
    case trace = "TRACE"
    case connect = "CONNECT"
}

extension HTTPMethod {
    /// The method whose name is exactly `bytes` (case-sensitive, as RFC 9110 has it), or nil.
    /// Allocates nothing.
    public init?(bytes: UnsafeRawBufferPointer) {
        for method in HTTPMethod.allCases {
            let name = method.rawValue.utf8
            if name.count == bytes.count && name.elementsEqual(bytes) {
                self = method
                return
            }
        }
        return nil
    }
}
