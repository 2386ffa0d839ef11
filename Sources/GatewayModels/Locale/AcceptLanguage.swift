/// A parsed `Accept-Language` header: language ranges with their q-values.
public enum AcceptLanguage {
    /// One language range, lower-cased (`en-us`, `ko`, `*`), with its quality in `0...1`.
    public struct Range: Sendable, Hashable {
        public let tag: String
        public let quality: Double
    }

    /// The ranges of `header`, sorted by descending quality; equal qualities keep header order.
    ///
    /// Lenient: empty elements are skipped, `_` is read as `-`, and a range whose tag is not
    /// `*` or letters/digits/hyphens, or whose `q` is not a number in `0...1` with at most three
    /// decimals, is dropped (not treated as `q=1`).
    public static func parse(_ header: String) -> [Range] {
        var ranges: [(offset: Int, range: Range)] = []
        for (offset, element) in header.split(separator: ",").enumerated() {
            let pieces = element.split(separator: ";").map { $0.trimmingSpaces() }
            guard let rawTag = pieces.first, !rawTag.isEmpty else { continue }
            let tag = rawTag.lowercased().replacingOccurrences(of: "_", with: "-")
            guard tag == "*" || tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else { continue }
            var quality = 1.0
            var valid = true
            for parameter in pieces.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces() }
                guard pair.count == 2, pair[0].lowercased() == "q" else { continue }
                if let q = qValue(pair[1]) { quality = q } else { valid = false }
            }
            if valid { ranges.append((offset, Range(tag: tag, quality: quality))) }
        }
        return ranges.sorted { lhs, rhs in
            lhs.range.quality != rhs.range.quality ? lhs.range.quality > rhs.range.quality : lhs.offset < rhs.offset
        }.map(\.range)
    }

    /// RFC 9110 `qvalue`: `0(.ddd)?` or `1(.000)?`.
    private static func qValue(_ text: String) -> Double? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, whole == "0" || whole == "1" else { return nil }
        var fraction = ""
        if parts.count == 2 {
            fraction = String(parts[1])
            guard fraction.count <= 3, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        }
        guard let value = Double("\(whole).\(fraction.isEmpty ? "0" : fraction)"), value <= 1 else { return nil }
        return value
    }
}

extension Substring {
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed())
    }
}
