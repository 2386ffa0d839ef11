/// Reads a complete multipart/form-data body (RFC 7578, RFC 2046 §5.1) into its parts.
///
/// Sans-IO: it is handed the whole body as bytes and does no I/O, so a server of any kind (the
/// gateway, the demo origin) can use it. It accepts any valid boundary, quoted or not in the
/// `Content-Type`; a preamble and an epilogue (ignored); whitespace after a delimiter; parts in
/// any order; part headers with raw UTF-8 (Korean file names) and RFC 5987 `filename*`. Line
/// breaks must be CRLF, as RFC 2046 requires. Errors are ``MultipartError``s saying what and
/// where.
///
/// Usage: `let parts = try MultipartParser(contentType: header).parse(body)`.
///
/// A value type: immutable, thread-safe.
public struct MultipartParser: Sendable {
    /// The boundary, without the leading `--` (for a message delimited by `--abc123`, `abc123`).
    public let boundary: String
    /// The most parts accepted before ``MultipartError/tooManyParts(limit:)``.
    public var maxParts: Int
    /// The longest header section of one part, in bytes.
    public var maxHeaderBytes: Int

    /// A parser for `boundary` (as in the `Content-Type` parameter, without `--`).
    /// - Throws: ``MultipartError/invalidBoundary(_:)``.
    public init(boundary: String, maxParts: Int = 100, maxHeaderBytes: Int = 8192) throws(MultipartError) {
        guard Self.isValidBoundary(boundary) else { throw .invalidBoundary(boundary) }
        self.boundary = boundary
        self.maxParts = maxParts
        self.maxHeaderBytes = maxHeaderBytes
    }

    /// A parser for the boundary named by a `Content-Type` header value such as
    /// `multipart/form-data; boundary="----abc"`.
    /// - Throws: ``MultipartError/notMultipartFormData(_:)``, ``MultipartError/invalidBoundary(_:)``.
    public init(contentType: String, maxParts: Int = 100, maxHeaderBytes: Int = 8192) throws(MultipartError) {
        let header = HeaderParameters(parsing: contentType)
        guard header.value == "multipart/form-data", let boundary = header.parameters["boundary"] else {
            throw .notMultipartFormData(contentType)
        }
        try self.init(boundary: boundary, maxParts: maxParts, maxHeaderBytes: maxHeaderBytes)
    }

    /// RFC 2046: 1–70 characters from `bchars`, not ending in a space.
    public static func isValidBoundary(_ boundary: String) -> Bool {
        let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ".utf8)
        return (1...70).contains(boundary.utf8.count) && boundary.utf8.allSatisfy(allowed.contains) && !boundary.hasSuffix(" ")
    }

    /// The parts of `body`, in order.
    /// - Throws: ``MultipartError`` for a malformed body.
    public func parse(_ body: [UInt8]) throws(MultipartError) -> [MultipartPart] {
        let delimiter = Array(("--" + boundary).utf8)
        let crlf: [UInt8] = [13, 10]
        // The first delimiter starts the body or follows a CRLF that ends the preamble.
        var position: Int
        if body.starts(with: delimiter) {
            position = 0
        } else if let found = Self.find(crlf + delimiter, in: body, from: 0) {
            position = found + 2
        } else {
            throw .missingOpeningDelimiter
        }
        var parts: [MultipartPart] = []
        while true {
            var cursor = position + delimiter.count
            if body.count >= cursor + 2, body[cursor] == UInt8(ascii: "-"), body[cursor + 1] == UInt8(ascii: "-") {
                return parts
            }
            guard parts.count < maxParts else { throw .tooManyParts(limit: maxParts) }
            while cursor < body.count, body[cursor] == UInt8(ascii: " ") || body[cursor] == UInt8(ascii: "\t") { cursor += 1 }
            guard body.count >= cursor + 2 else { throw .missingCloseDelimiter }
            guard body[cursor] == 13, body[cursor + 1] == 10 else { throw .malformedDelimiter(partIndex: parts.count) }
            cursor += 2
            let headerEnd: Int
            let bodyStart: Int
            if body.count >= cursor + 2, body[cursor] == 13, body[cursor + 1] == 10 {
                headerEnd = cursor
                bodyStart = cursor + 2
            } else {
                guard let end = Self.find([13, 10, 13, 10], in: body, from: cursor, limit: cursor + maxHeaderBytes) else {
                    throw .unterminatedHeaders(partIndex: parts.count)
                }
                headerEnd = end
                bodyStart = end + 4
            }
            guard let next = Self.find(crlf + delimiter, in: body, from: bodyStart) else {
                throw .missingCloseDelimiter
            }
            let headers = try Self.headers(body[cursor..<headerEnd], partIndex: parts.count)
            parts.append(try Self.part(headers: headers, body: Array(body[bodyStart..<next]), partIndex: parts.count))
            position = next + 2
        }
    }

    private static func headers(_ bytes: ArraySlice<UInt8>, partIndex: Int) throws(MultipartError) -> [MultipartHeader] {
        guard !bytes.isEmpty else { return [] }
        var headers: [MultipartHeader] = []
        for line in String(decoding: bytes, as: UTF8.self).components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                throw .invalidHeader(partIndex: partIndex, line: line)
            }
            headers.append(MultipartHeader(
                name: String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                value: String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
            ))
        }
        return headers
    }

    private static func part(headers: [MultipartHeader], body: [UInt8], partIndex: Int) throws(MultipartError) -> MultipartPart {
        guard let disposition = headers.first(where: { $0.name.lowercased() == "content-disposition" }) else {
            throw .missingContentDisposition(partIndex: partIndex)
        }
        let parsed = HeaderParameters(parsing: disposition.value)
        guard parsed.value == "form-data", let name = parsed.parameters["name"] else {
            throw .missingContentDisposition(partIndex: partIndex)
        }
        return MultipartPart(
            name: name,
            filename: parsed.parameters["filename"],
            contentType: headers.first { $0.name.lowercased() == "content-type" }?.value,
            headers: headers,
            body: body
        )
    }

    /// The first index of `needle` in `haystack` at or after `from` (and starting before `limit`).
    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int, limit: Int = .max) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        let last = min(haystack.count - needle.count, limit)
        var index = from
        while index <= last {
            if haystack[index] == first {
                var matched = 1
                while matched < needle.count, haystack[index + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return index }
            }
            index += 1
        }
        return nil
    }
}
