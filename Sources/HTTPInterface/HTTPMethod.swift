/// The request methods the gateway routes; the router answers 405 with `Allow` where a path
/// does not take the method, and 501 for other methods on unknown paths.
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
    /// Allocates nothing; on every request, so it compares bytes, not strings.
    public init?(bytes: UnsafeRawBufferPointer) {
        guard let first = bytes.first else { return nil }
        let method: HTTPMethod?
        switch first {
        case UInt8(ascii: "G"): method = Self.spelled(bytes, "GET") ? .get : nil
        case UInt8(ascii: "H"): method = Self.spelled(bytes, "HEAD") ? .head : nil
        case UInt8(ascii: "P"): method = Self.spelled(bytes, "POST") ? .post : Self.spelled(bytes, "PUT") ? .put : Self.spelled(bytes, "PATCH") ? .patch : nil
        case UInt8(ascii: "D"): method = Self.spelled(bytes, "DELETE") ? .delete : nil
        case UInt8(ascii: "O"): method = Self.spelled(bytes, "OPTIONS") ? .options : nil
        case UInt8(ascii: "T"): method = Self.spelled(bytes, "TRACE") ? .trace : nil
        case UInt8(ascii: "C"): method = Self.spelled(bytes, "CONNECT") ? .connect : nil
        default: method = nil
        }
        guard let method else { return nil }
        self = method
    }

    @inline(__always)
    private static func spelled(_ bytes: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount else { return false }
        let expected = name.utf8Start
        for index in 0..<bytes.count where bytes[index] != expected[index] { return false }
        return true
    }
}
