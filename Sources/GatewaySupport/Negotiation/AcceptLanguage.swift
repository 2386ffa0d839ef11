/// A parsed `Accept-Language` header: language ranges with their q-values.
public enum AcceptLanguage {
    /// One language range, lower-cased (`en-us`, `ko`, `*`), with its quality in `0...1`.
    public struct Range: Sendable, Hashable {
        public let tag: String
        public let quality: Double

        package init(tag: String, quality: Double) {
            self.tag = tag
            self.quality = quality
        }
    }

    /// The ranges of `header`, sorted by descending quality; equal qualities keep header order.
    ///
    /// Lenient: empty elements are skipped, `_` is read as `-`, and a range whose tag is not
    /// `*` or ASCII letters/digits/hyphens, or whose `q` is not an RFC 9110 `qvalue`, is
    /// dropped (not treated as `q=1`). Bounded as ``WeightedList`` is.
    public static func parse(_ header: String) -> [Range] {
        var ranges: [Range] = []
        WeightedList.forEach(header) { tag, weight in
            if let weight, !tag.isEmpty, let tag = languageRange(tag) {
                ranges.append(Range(tag: tag, quality: Double(weight) / 1000))
            }
            return true
        }
        // A stable sort: equal qualities keep header order.
        return ranges.enumerated().sorted { lhs, rhs in
            lhs.element.quality != rhs.element.quality ? lhs.element.quality > rhs.element.quality : lhs.offset < rhs.offset
        }.map(\.element)
    }

    /// The range lower-cased with `_` as `-`, or nil when it holds anything else than `*`
    /// or ASCII letters, digits, hyphens and underscores.
    private static func languageRange(_ bytes: UnsafeRawBufferPointer) -> String? {
        if bytes.count == 1, bytes[0] == UInt8(ascii: "*") { return "*" }
        var tag: [UInt8] = []
        tag.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"): tag.append(byte)
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): tag.append(byte | 0x20)
            case UInt8(ascii: "_"): tag.append(UInt8(ascii: "-"))
            default: return nil
            }
        }
        return String(decoding: tag, as: UTF8.self)
    }
}
