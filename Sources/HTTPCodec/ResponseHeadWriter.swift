/// Writes an HTTP/1.1 response head into a byte array the caller reuses: no formatting
/// library, and no allocation once the array has the capacity.
///
/// The caller vouches for the bytes of names and values (no CR, LF or NUL; the gateway
/// drops unsafe fields before they get here); the writer only lays them out.
public enum ResponseHeadWriter {
    /// Appends `HTTP/1.1 <status> <reason>\r\n`.
    public static func appendStatusLine(_ status: Int, to head: inout [UInt8]) {
        if let line = commonStatusLines[status] {
            head.append(contentsOf: line)
            return
        }
        head.append(contentsOf: "HTTP/1.1 ".utf8)
        appendDecimal(status, to: &head)
        head.append(ASCII.space)
        head.append(contentsOf: HTTPStatus.reasonPhrase(status).utf8)
        head.append(contentsOf: crlf)
    }

    /// Appends `name: value\r\n`.
    public static func appendField(_ name: String, _ value: String, to head: inout [UInt8]) {
        var name = name
        var value = value
        name.withUTF8 { head.append(contentsOf: $0) }
        head.append(contentsOf: colonSpace)
        value.withUTF8 { head.append(contentsOf: $0) }
        head.append(contentsOf: crlf)
    }

    /// Appends a field whose line (`Name: value\r\n`) was built once, ahead of time.
    public static func appendPrebuilt(_ line: [UInt8], to head: inout [UInt8]) {
        head.append(contentsOf: line)
    }

    /// Appends `Content-Length: <count>\r\n`.
    public static func appendContentLength(_ count: Int, to head: inout [UInt8]) {
        head.append(contentsOf: contentLengthName)
        appendDecimal(count, to: &head)
        head.append(contentsOf: crlf)
    }

    /// Appends the blank line that ends the head.
    public static func appendEnd(to head: inout [UInt8]) {
        head.append(contentsOf: crlf)
    }

    /// Appends a non-negative integer in decimal.
    public static func appendDecimal(_ value: Int, to head: inout [UInt8]) {
        precondition(value >= 0, "negative decimal in a response head")
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                      UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { scratch in
            var rest = value
            var index = scratch.count
            repeat {
                index -= 1
                scratch[index] = UInt8(0x30 + rest % 10)
                rest /= 10
            } while rest > 0
            head.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[index...]))
        }
    }

    public static let crlf: [UInt8] = [ASCII.cr, ASCII.lf]
    private static let colonSpace: [UInt8] = [ASCII.colon, ASCII.space]
    private static let contentLengthName: [UInt8] = Array("Content-Length: ".utf8)
    private static let commonStatusLines: [Int: [UInt8]] = {
        var lines: [Int: [UInt8]] = [:]
        for status in [200, 201, 204, 304, 400, 404, 405, 408, 413, 414, 431, 500, 501, 502, 503, 504, 505] {
            lines[status] = Array("HTTP/1.1 \(status) \(HTTPStatus.reasonPhrase(status))\r\n".utf8)
        }
        return lines
    }()
}
