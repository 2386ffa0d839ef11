/// Checks of a request's header fields that defend against request smuggling and header
/// injection. They run on every request before routing, because libevent 2.1.12 (and even
/// Debian's patched build) lets some of these shapes through: it takes the first of two
/// `Content-Length` fields, accepts `Content-Length: +3`, and accepts empty header names.
///
/// A request that fails gets 400 with `Connection: close`, so no byte after it on the same
/// connection is ever parsed as a request.
public enum RequestFraming {
    /// The first problem found, or nil when the framing is unambiguous. `method` matters
    /// because libevent reads no body at all for HEAD, TRACE and CONNECT: a length on those
    /// would leave body bytes to be parsed as the next request.
    public static func problem(in headers: HTTPHeaders, method: HTTPMethod? = nil) -> String? {
        var contentLengths = 0
        var transferEncodings = 0
        var hosts = 0
        for field in headers {
            if field.name.isEmpty { return "A header field has an empty name." }
            if !isToken(field.name) { return "The header name \"\(printable(field.name))\" is not a valid token." }
            if let byte = field.value.utf8.first(where: isForbiddenInValue) {
                return "The value of \(field.name) contains the control byte 0x\(String(byte, radix: 16))."
            }
            // Framing values are compared as libevent stored them (it strips leading spaces
            // only): a tab or a folded line before `chunked` makes libevent read no chunked
            // body while a front proxy may, so such values are refused, not trimmed.
            if HTTPHeaders.sameName(field.name, "Content-Length") {
                contentLengths += 1
                if !isDigits(field.value) {
                    return "Content-Length must be decimal digits only."
                }
                if let method, !mayHaveBody(method), field.value.contains(where: { $0 != "0" }) {
                    return "\(method.rawValue) requests must not have a body."
                }
            } else if HTTPHeaders.sameName(field.name, "Transfer-Encoding") {
                transferEncodings += 1
                if !HTTPHeaders.sameName(field.value, "chunked") {
                    return "Only Transfer-Encoding: chunked is accepted."
                }
                if let method, !mayHaveBody(method) {
                    return "\(method.rawValue) requests must not have a body."
                }
            } else if HTTPHeaders.sameName(field.name, "Host") {
                hosts += 1
            }
        }
        if contentLengths > 1 { return "Content-Length appears more than once." }
        if transferEncodings > 1 { return "Transfer-Encoding appears more than once." }
        if transferEncodings > 0 && contentLengths > 0 {
            return "Transfer-Encoding and Content-Length must not both be present."
        }
        if hosts == 0 { return "The Host header is required." }
        if hosts > 1 { return "Host appears more than once." }
        return nil
    }

    /// Whether libevent reads a body for `method` (it reads none for HEAD, TRACE, CONNECT).
    static func mayHaveBody(_ method: HTTPMethod) -> Bool {
        switch method {
        case .head, .trace, .connect: false
        default: true
        }
    }

    /// RFC 9110 §5.6.2 token characters.
    static func isToken(_ name: String) -> Bool {
        name.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                true
            default:
                "!#$%&'*+-.^_`|~".utf8.contains(byte)
            }
        }
    }

    /// NUL, CR, LF and the other C0 controls but horizontal tab, and DEL.
    static func isForbiddenInValue(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != UInt8(ascii: "\t")) || byte == 0x7F
    }

    private static func isDigits(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 18 && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    private static func printable(_ text: String) -> String {
        String(decoding: text.utf8.prefix(64).map { $0 < 0x20 || $0 >= 0x7F ? UInt8(ascii: "?") : $0 }, as: UTF8.self)
    }
}
