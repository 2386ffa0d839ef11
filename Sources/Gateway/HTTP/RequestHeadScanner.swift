/// Follows the framing of the requests on one connection, byte by byte as they arrive, and
/// rewrites every NUL inside a request head or trailer block to DEL (0x7F).
///
/// Why: libevent 2.1.12 stores header values as C strings, so `X-A: a\0b` reaches the
/// gateway as `a`, and the NUL, the one sign of trouble, is gone. Rewritten to DEL before
/// libevent parses the line, it survives into the value, and `RequestFraming` refuses the
/// request with 400. Body bytes are never touched: the scanner skips `Content-Length`
/// bodies and chunked bodies the way libevent frames them (first `Content-Length` wins,
/// blank lines between chunks are allowed).
///
/// Sans-IO: feed it bytes with `scan`; it keeps no reference to them.
public struct RequestHeadScanner: Sendable {
    enum State: Sendable, Equatable {
        /// In a request head: `started` once the request line began (blank lines before
        /// it are skipped, as libevent does).
        case head(started: Bool)
        case body(remaining: Int64)
        case chunkSize
        case chunkData(remaining: Int64)
        case trailers
        /// The framing could not be followed (libevent will refuse the request and close);
        /// nothing more is rewritten.
        case lost
    }

    private(set) var state: State = .head(started: false)
    /// The start of the current line, kept only up to `lineLimit` bytes: enough to read a
    /// header name and a Content-Length, Transfer-Encoding or chunk-size value.
    private var line: [UInt8] = []
    private var lineLength = 0
    private var contentLength: Int64?
    private var chunked = false
    private static let lineLimit = 96
    private static let del: UInt8 = 0x7F

    public init() {}

    /// Scans `bytes`, the next bytes received on the connection, and rewrites NULs in
    /// request heads and trailers in place.
    public mutating func scan(_ bytes: UnsafeMutableBufferPointer<UInt8>) {
        var index = 0
        while index < bytes.count {
            switch state {
            case .body(let remaining):
                let skip = Int(min(remaining, Int64(bytes.count - index)))
                index += skip
                state = remaining - Int64(skip) == 0 ? .head(started: false) : .body(remaining: remaining - Int64(skip))
            case .chunkData(let remaining):
                let skip = Int(min(remaining, Int64(bytes.count - index)))
                index += skip
                state = remaining - Int64(skip) == 0 ? .chunkSize : .chunkData(remaining: remaining - Int64(skip))
            case .lost:
                return
            case .head, .chunkSize, .trailers:
                // The rest of the current line, up to its LF or the end of what arrived.
                var end = index
                while end < bytes.count && bytes[end] != UInt8(ascii: "\n") {
                    if bytes[end] == 0 { bytes[end] = Self.del }
                    end += 1
                }
                let keep = min(end - index, Self.lineLimit - line.count)
                if keep > 0 { line.append(contentsOf: bytes[index..<(index + keep)]) }
                lineLength += end - index
                if end < bytes.count {
                    endOfLine()
                    index = end + 1
                } else {
                    index = end
                }
            }
        }
    }

    private mutating func endOfLine() {
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        let isEmpty = line.isEmpty && lineLength <= 1
        defer {
            line.removeAll(keepingCapacity: true)
            lineLength = 0
        }
        switch state {
        case .head(let started):
            if !started {
                if !isEmpty { state = .head(started: true) }
            } else if isEmpty {
                endOfHead()
            } else {
                readHeaderLine()
            }
        case .chunkSize:
            if isEmpty { return }
            guard let size = Self.chunkSize(line) else {
                state = .lost
                return
            }
            state = size == 0 ? .trailers : .chunkData(remaining: size)
        case .trailers:
            if isEmpty { state = .head(started: false) }
        case .body, .chunkData, .lost:
            break
        }
    }

    private mutating func readHeaderLine() {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = line[..<colon]
        if contentLength == nil && Self.equalsIgnoringCase(name, Self.contentLengthName) {
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingSpaces()
            contentLength = Int64(value.hasPrefix("+") ? String(value.dropFirst()) : value) ?? -1
        } else if Self.equalsIgnoringCase(name, Self.transferEncodingName) {
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self)
            let last = value.split(separator: ",").last.map { $0.trimmingSpaces() } ?? ""
            chunked = HTTPHeaders.sameName(last, "chunked")
        }
    }

    private static let contentLengthName = Array("content-length".utf8)
    private static let transferEncodingName = Array("transfer-encoding".utf8)

    /// `bytes` equal `lowercase` (ASCII letters compared without case).
    private static func equalsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ lowercase: [UInt8]) -> Bool {
        bytes.count == lowercase.count
            && zip(bytes, lowercase).allSatisfy { byte, target in
                byte == target || (target >= UInt8(ascii: "a") && target <= UInt8(ascii: "z") && byte | 0x20 == target)
            }
    }

    private mutating func endOfHead() {
        defer {
            contentLength = nil
            chunked = false
        }
        if chunked {
            state = .chunkSize
        } else if let contentLength, contentLength > 0 {
            state = .body(remaining: contentLength)
        } else if let contentLength, contentLength < 0 {
            state = .lost
        } else {
            state = .head(started: false)
        }
    }

    /// The size on a chunk-size line, or nil: 1 to 15 hex digits (no sign, no `0x`; at most
    /// 15 so the size fits an Int64), then optional spaces or tabs and extensions after `;`,
    /// which are ignored. A sign must never pass: `-5` once made `.chunkData(remaining: -5)`
    /// step backwards and spin the loop for good.
    static func chunkSize(_ line: [UInt8]) -> Int64? {
        var size: Int64 = 0
        var digits = 0
        var index = 0
        while index < line.count, let value = hexValue(line[index]) {
            guard digits < 15 else { return nil }
            size = size << 4 | Int64(value)
            digits += 1
            index += 1
        }
        guard digits > 0 else { return nil }
        while index < line.count, line[index] == UInt8(ascii: " ") || line[index] == UInt8(ascii: "\t") { index += 1 }
        guard index == line.count || line[index] == UInt8(ascii: ";") else { return nil }
        return size
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
