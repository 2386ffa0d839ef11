import Foundation

/// A strict RFC 8259 JSON parser from UTF-8 bytes to ``JSONValue``, with exact numbers.
///
/// Why not `JSONDecoder`: the read path decodes an origin page on every cache miss. On the
/// 20-item v1 sample a typed `Decodable` pass through Foundation took ~115 µs; this parser builds
/// the tree in ~40 µs and the origin shape is read from it in ~20 µs more (docs/performance.md, "Contract mapping"). Numbers are built as `Decimal` straight from their digits: up to
/// 19 significant digits from integer arithmetic (`Decimal(sign:exponent:significand:)`), longer
/// ones through `Decimal(string:)`; never through `Double`.
///
/// Rejects: trailing commas, comments, single quotes, leading zeros, `NaN`, control characters
/// in strings, invalid escapes and lone surrogates, invalid UTF-8, anything after the value, and
/// nesting deeper than ``maxDepth``. Duplicate keys keep the last value, unless the
/// ``Limits`` say otherwise (``Limits/strict(maxDepth:maxValues:)``: a token's header and
/// claims, where a second `exp` or `aud` must not pass unnoticed).
///
/// A value type with no shared state: thread-safe.
public struct JSONParser {
    /// The deepest nesting of arrays and objects accepted.
    public static let maxDepth = 512

    /// What a parse accepts beyond RFC 8259's grammar.
    public struct Limits: Sendable, Hashable {
        /// The deepest nesting of arrays and objects.
        public var maxDepth: Int
        /// The most values in all (every member's value, every element, containers included).
        public var maxValues: Int
        /// Whether an object naming one key twice is refused (else the last value wins).
        public var rejectsDuplicateKeys: Bool

        /// Origin pages and client bodies: ``JSONParser/maxDepth``, no count, last duplicate wins.
        public static let standard = Limits(maxDepth: JSONParser.maxDepth, maxValues: .max, rejectsDuplicateKeys: false)

        /// Untrusted small documents: duplicates refused, depth and count bounded.
        public static func strict(maxDepth: Int, maxValues: Int) -> Limits {
            Limits(maxDepth: maxDepth, maxValues: maxValues, rejectsDuplicateKeys: true)
        }
    }

    /// What went wrong and at which byte offset.
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public let offset: Int
        public let reason: String

        public init(offset: Int, reason: String) {
            self.offset = offset
            self.reason = reason
        }

        public var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    private let bytes: UnsafeBufferPointer<UInt8>
    private let limits: Limits
    private var index = 0
    private var depth = 0
    private var values = 0

    /// Parses exactly one JSON value (surrounded by optional whitespace).
    /// - Throws: ``Failure``, also when `limits` are exceeded.
    public static func parse(_ bytes: some Sequence<UInt8>, limits: Limits = .standard) throws(Failure) -> JSONValue {
        let array = bytes as? [UInt8] ?? Array(bytes)
        let result: Result<JSONValue, Failure> = array.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(bytes: buffer, limits: limits)
            do throws(Failure) {
                parser.skipWhitespace()
                let value = try parser.value()
                parser.skipWhitespace()
                guard parser.index == buffer.count else { throw parser.failure("unexpected data after the value") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private init(bytes: UnsafeBufferPointer<UInt8>, limits: Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    private func failure(_ reason: String) -> Failure {
        Failure(offset: index, reason: reason)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func value() throws(Failure) -> JSONValue {
        guard index < bytes.count else { throw failure("unexpected end") }
        values += 1
        guard values <= limits.maxValues else { throw failure("more than \(limits.maxValues) values") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw failure("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw failure("unexpected end") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw failure("invalid literal")
        }
        index += count
    }

    private mutating func nest() throws(Failure) {
        depth += 1
        guard depth <= limits.maxDepth else { throw failure("nested deeper than \(limits.maxDepth)") }
    }

    private mutating func object() throws(Failure) -> JSONValue {
        try nest()
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure("expected a key") }
            let keyOffset = index
            let key = try string()
            if limits.rejectsDuplicateKeys, members[key] != nil { throw Failure(offset: keyOffset, reason: "duplicate key") }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            skipWhitespace()
            members[key] = try value()
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "}") else { throw failure("expected ',' or '}'") }
            index += 1
            depth -= 1
            return .object(members)
        }
    }

    private mutating func array() throws(Failure) -> JSONValue {
        try nest()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value())
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end") }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            guard bytes[index] == UInt8(ascii: "]") else { throw failure("expected ',' or ']'") }
            index += 1
            depth -= 1
            return .array(elements)
        }
    }

    private mutating func string() throws(Failure) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<index])
                index += 1
                guard let text = String(validating: slice, as: UTF8.self) else {
                    throw Failure(offset: start, reason: "invalid UTF-8 in a string")
                }
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw failure("control character in a string") }
            index += 1
        }
        var scratch = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: scratch, as: UTF8.self) else {
                    throw Failure(offset: start, reason: "invalid UTF-8 in a string")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw failure("unexpected end") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escape)
                case UInt8(ascii: "b"): scratch.append(0x08)
                case UInt8(ascii: "f"): scratch.append(0x0C)
                case UInt8(ascii: "n"): scratch.append(0x0A)
                case UInt8(ascii: "r"): scratch.append(0x0D)
                case UInt8(ascii: "t"): scratch.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                            throw failure("lone surrogate")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw failure("lone surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw failure("lone surrogate") }
                    scratch.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw failure("invalid escape")
                }
            default:
                guard byte >= 0x20 else { throw failure("control character in a string") }
                scratch.append(byte)
                index += 1
            }
        }
        throw failure("unterminated string")
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("unexpected end") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func number() throws(Failure) -> Decimal {
        let start = index
        var negative = false
        if bytes[index] == UInt8(ascii: "-") { negative = true; index += 1 }
        var significand: UInt64 = 0
        var significantDigits = 0
        var exponent = 0
        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw failure("leading zero") }
        } else {
            while index < bytes.count, isDigit(bytes[index]) {
                if significantDigits < 19 {
                    significand = significand * 10 + UInt64(bytes[index] - UInt8(ascii: "0"))
                    significantDigits += 1
                } else {
                    significantDigits += 1
                    exponent += 1
                }
                index += 1
            }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) {
                if significantDigits < 19 {
                    significand = significand * 10 + UInt64(bytes[index] - UInt8(ascii: "0"))
                    if significand > 0 { significantDigits += 1 }
                    exponent -= 1
                } else {
                    significantDigits += 1
                }
                index += 1
            }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            var exponentNegative = false
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < bytes.count, isDigit(bytes[index]) else { throw failure("invalid exponent") }
            var written = 0
            while index < bytes.count, isDigit(bytes[index]) {
                if written < 100_000 { written = written * 10 + Int(bytes[index] - UInt8(ascii: "0")) }
                index += 1
            }
            exponent += exponentNegative ? -written : written
        }
        if significantDigits <= 19, (-128...127).contains(exponent) {
            return Decimal(sign: negative ? .minus : .plus, exponent: exponent, significand: Decimal(significand))
        }
        // More than 19 significant digits, or an extreme exponent: let Decimal read the text.
        // Valid JSON is never refused here. A number too large for Decimal (1e400) is NaN, which
        // the readers refuse where they read a member (a field error naming it); one too small
        // (1e-300, below Decimal's ~1e-128) is 0, the nearest value Decimal holds.
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) { return value }
        return exponent < 0 ? 0 : .nan
    }
}
