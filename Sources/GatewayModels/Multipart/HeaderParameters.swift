import Foundation

/// A header value of the form `token; key=value; key="quoted value"`, as `Content-Type` and
/// `Content-Disposition` use it.
///
/// Parameter names are lower-cased. Quoted strings may hold `;`, spaces, raw UTF-8 and `\`
/// escapes. An RFC 5987 extended parameter (`filename*=UTF-8''%ED%95%9C.png`) is decoded and
/// stored under its name without the `*`, replacing the plain one.
public struct HeaderParameters: Sendable, Hashable {
    /// The value before the first `;`, lower-cased (`form-data`, `multipart/form-data`).
    public var value: String
    public var parameters: [String: String]

    /// Parses `text`; never fails (malformed parameters are skipped).
    public init(parsing text: String) {
        var scalars = Substring(text).unicodeScalars[...]
        func skipSpaces() { while let s = scalars.first, s == " " || s == "\t" { scalars.removeFirst() } }
        func readUntil(_ stops: Set<Unicode.Scalar>) -> String {
            var out = String.UnicodeScalarView()
            while let s = scalars.first, !stops.contains(s) { out.append(s); scalars.removeFirst() }
            return String(out).trimmingCharacters(in: .whitespaces)
        }
        value = readUntil([";"]).lowercased()
        var parameters: [String: String] = [:]
        var extended: Set<String> = []
        while scalars.first == ";" {
            scalars.removeFirst()
            skipSpaces()
            let name = readUntil(["=", ";"]).lowercased()
            guard scalars.first == "=" else { continue }
            scalars.removeFirst()
            skipSpaces()
            var raw: String
            if scalars.first == "\"" {
                scalars.removeFirst()
                var out = String.UnicodeScalarView()
                while let s = scalars.first, s != "\"" {
                    scalars.removeFirst()
                    if s == "\\", let escaped = scalars.first { out.append(escaped); scalars.removeFirst() } else { out.append(s) }
                }
                if scalars.first == "\"" { scalars.removeFirst() }
                raw = String(out)
                _ = readUntil([";"])
            } else {
                raw = readUntil([";"])
            }
            guard !name.isEmpty else { continue }
            if name.hasSuffix("*") {
                let base = String(name.dropLast())
                if let decoded = Self.decodeExtended(raw) {
                    parameters[base] = decoded
                    extended.insert(base)
                }
            } else if !extended.contains(name) {
                parameters[name] = raw
            }
        }
        self.parameters = parameters
    }

    /// RFC 5987 `charset'language'percent-encoded`; UTF-8 and ISO-8859-1 charsets.
    private static func decodeExtended(_ raw: String) -> String? {
        let pieces = raw.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3 else { return nil }
        var bytes: [UInt8] = []
        var utf8 = pieces[2].utf8[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else { return nil }
                bytes.append(value)
                utf8 = utf8.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        switch pieces[0].lowercased() {
        case "utf-8": return String(validating: bytes, as: UTF8.self)
        case "iso-8859-1": return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default: return nil
        }
    }
}
