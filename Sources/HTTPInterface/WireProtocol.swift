/// The protocol a request came over, as access lines and metrics name it (`protocol`).
public enum WireProtocol: String, Sendable, Hashable {
    case http10 = "HTTP/1.0"
    case http11 = "HTTP/1.1"
    case http2 = "HTTP/2"

    /// HTTP/1.0 or HTTP/1.1 from a head's minor version.
    public init(http1MinorVersion: Int) {
        self = http1MinorVersion == 0 ? .http10 : .http11
    }
}
