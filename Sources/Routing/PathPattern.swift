import GatewaySupport
import HTTPInterface

/// A route path such as `/v1/products/{id}`: literal segments and named parameters that
/// match exactly one non-empty segment.
struct PathPattern: Sendable, Equatable, CustomStringConvertible {
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    let segments: [Segment]
    let description: String

    init(_ pattern: String) {
        precondition(pattern.hasPrefix("/"), "route patterns start with /: \(pattern)")
        description = pattern
        segments = pattern.split(separator: "/", omittingEmptySubsequences: true).map { part in
            if part.hasPrefix("{") && part.hasSuffix("}") {
                return .parameter(String(part.dropFirst().dropLast()))
            }
            return .literal(String(part))
        }
    }

    /// The decoded parameters when `segments` (already split and percent-decoded) match.
    func match(_ pathSegments: [String]) -> [String: String]? {
        guard pathSegments.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, actual) in zip(segments, pathSegments) {
            switch segment {
            case .literal(let literal): if literal != actual { return nil }
            case .parameter(let name): parameters[name] = actual
            }
        }
        return parameters
    }

    /// The path's segments percent-decoded, or nil when the path cannot match any route:
    /// empty segments (`//`, a trailing `/` after the root), dot segments, bad escapes, or
    /// an encoded `/`.
    static func split(_ path: String) -> [String]? {
        let utf8 = path.utf8
        guard utf8.first == UInt8(ascii: "/") else { return nil }
        if utf8.count == 1 { return [] }
        var result: [String] = []
        result.reserveCapacity(4)
        var rest = utf8.dropFirst()
        while true {
            let end = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
            let raw = Substring(rest[..<end])
            guard !raw.isEmpty, let decoded = PercentDecoding.decode(raw), !decoded.utf8.contains(UInt8(ascii: "/")),
                decoded != ".", decoded != ".."
            else { return nil }
            result.append(decoded)
            guard end != rest.endIndex else { return result }
            rest = rest[rest.index(after: end)...]
        }
    }
}
