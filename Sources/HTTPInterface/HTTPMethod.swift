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
