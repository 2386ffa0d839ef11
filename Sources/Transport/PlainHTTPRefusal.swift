import Foundation
import GatewaySupport
import HTTPInterface

/// The answer to plain HTTP sent to the TLS port (nginx's "The plain HTTP request was sent to
/// HTTPS port"): `400` with a problem+json body, in plain text, naming the `https://` URL the
/// request meant, then the connection closes.
enum PlainHTTPRefusal {
    static let problemType = "urn:open-market-gateway:problem:plain-http-on-tls-port"

    /// Whether `first`, the first byte a client sent to the TLS port, starts an HTTP/1.x
    /// request line (an uppercase method letter) rather than a TLS record (whose first byte is
    /// its content type, 22 for a handshake, or 128 and up for an SSLv2-style hello).
    static func startsPlainHTTP(_ first: UInt8) -> Bool { first >= UInt8(ascii: "A") && first <= UInt8(ascii: "Z") }

    /// The whole answer: head and body. `peeked`: what the client sent so far (its request
    /// line and `Host`, when they are there and well-formed, give the URL).
    static func response(peeked: some Collection<UInt8>, requestID: String, traceID: String) -> [UInt8] {
        var body = JSONWriter(capacity: 320)
        body.beginObject()
        body.key("type"); body.string(problemType)
        body.key("title"); body.string("Bad Request")
        body.key("status"); body.integer(400)
        body.key("detail"); body.string("plain HTTP sent to the TLS port; use \(httpsURL(peeked: peeked) ?? "https://")")
        body.key("requestId"); body.string(requestID)
        body.key("traceId"); body.string(traceID)
        body.endObject()
        let head = "HTTP/1.1 400 Bad Request\r\nContent-Type: application/problem+json\r\nContent-Length: \(body.bytes.count)\r\n"
            + "Connection: close\r\nX-Request-ID: \(requestID)\r\n\r\n"
        return Array(head.utf8) + body.bytes
    }

    /// `https://<Host><target>` from a request's head, when its request line is
    /// `METHOD /target HTTP/1.x` with a target of visible ASCII (at most 2,048 bytes) and its
    /// `Host` holds only a name, an address and a port; nil otherwise.
    static func httpsURL(peeked: some Collection<UInt8>) -> String? {
        let text = String(decoding: peeked.prefix(8192), as: UTF8.self)
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        guard let requestLine = lines.first else { return nil }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/1."), parts[1].hasPrefix("/"), parts[1].utf8.count <= 2048,
            parts[1].utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") })
        else { return nil }
        for line in lines.dropFirst() {
            if line.isEmpty { break }
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == "host" else { continue }
            let host = line[line.index(after: colon)...].trimmingCharacters(in: [" ", "\t"])
            let allowed = host.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || [UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: "]")].contains(byte)
            }
            guard !host.isEmpty, host.utf8.count <= 255, allowed else { return nil }
            return "https://\(host)\(parts[1])"
        }
        return nil
    }
}
