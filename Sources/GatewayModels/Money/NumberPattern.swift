import Foundation
import GatewaySupport

/// A locale's layout for non-negative numbers, read once from an ICU formatter's own output and
/// then applied by hand: affixes, grouping and decimal separators, group sizes.
///
/// Why: ICU formatting costs about 1.4 µs a call here; a product page needs ~60 strings, which
/// alone used a third of the page budget. Each (locale, currency) pattern is derived from the
/// ICU-backed Foundation formatter and accepted only if it reproduces that formatter exactly on a
/// set of probe values (`0`, `7`, `1234`, `12345`, …, 10^12); otherwise the caller keeps calling
/// ICU. Layouts this cannot express (non-ASCII digits, mixed separators) are rejected the same way.
/// The property tests compare the two across every ISO currency and many amounts.
struct NumberPattern: Sendable, Hashable {
    var prefix: String
    var suffix: String
    var groupingSeparator: String
    var decimalSeparator: String
    /// Size of the rightmost group (3), or 0 for no grouping.
    var primaryGroup: Int
    /// Size of the groups left of it (3; 2 in en-IN).
    var secondaryGroup: Int
    /// ICU's minimum grouping digits: 2 means `1234` stays ungrouped but `12345` is grouped.
    var minimumGroupingDigits: Int
    /// Fraction digits shown (the currency's minor units; 0 for counts).
    var fractionDigits: Int

    /// Reads the layout from `icu` (which must format with exactly `fractionDigits` digits) and
    /// checks it; `nil` when the pattern would not reproduce `icu`.
    static func derive(fractionDigits: Int, icu: (Decimal) -> String) -> NumberPattern? {
        let big = Array(icu(1_234_567).unicodeScalars)
        guard let first = big.firstIndex(of: "1"),
              let last = big.lastIndex(where: { ("0"..."9").contains($0) }) else { return nil }
        var core = Array(big[first...last])
        var decimalSeparator = ""
        if fractionDigits > 0 {
            guard core.count > fractionDigits + 1, core.suffix(fractionDigits).allSatisfy({ $0 == "0" }) else { return nil }
            core.removeLast(fractionDigits)
            guard let seven = core.lastIndex(of: "7") else { return nil }
            decimalSeparator = String(String.UnicodeScalarView(core[(seven + 1)...]))
            core.removeSubrange((seven + 1)...)
        }
        var groups: [Int] = [0]
        var separator: String?
        var pending = String.UnicodeScalarView()
        for scalar in core {
            if ("0"..."9").contains(scalar) {
                if !pending.isEmpty {
                    let text = String(pending)
                    guard separator == nil || separator == text else { return nil }
                    separator = text
                    pending = String.UnicodeScalarView()
                    groups.append(0)
                }
                groups[groups.count - 1] += 1
            } else {
                pending.append(scalar)
            }
        }
        let digits = core.filter { ("0"..."9").contains($0) }
        guard String(String.UnicodeScalarView(digits)) == "1234567" else { return nil }
        let primary = groups.count > 1 ? groups[groups.count - 1] : 0
        let secondary = groups.count > 2 ? groups[groups.count - 2] : primary
        let small = icu(1234)
        let minimumGrouping = primary > 0 && !small.unicodeScalars.contains(where: { separator?.unicodeScalars.first == $0 }) ? 2 : 1
        let pattern = NumberPattern(
            prefix: String(String.UnicodeScalarView(big[..<first])),
            suffix: String(String.UnicodeScalarView(big[(last + 1)...])),
            groupingSeparator: separator ?? "",
            decimalSeparator: decimalSeparator,
            primaryGroup: primary,
            secondaryGroup: secondary,
            minimumGroupingDigits: minimumGrouping,
            fractionDigits: fractionDigits
        )
        let probes: [Decimal] = [0, 7, 1234, 12345, 123_456, 9_999_999, 1_000_000_000_000,
                                 Decimal(string: "0.5")!, Decimal(string: "16.9")!, Decimal(string: "1234.5678")!]
        for probe in probes where pattern.format(probe) != icu(probe) { return nil }
        return pattern
    }

    /// `value` in this layout, rounded half-to-even to ``fractionDigits``; `nil` for negative
    /// values (the caller formats those with ICU).
    func format(_ value: Decimal) -> String? {
        guard value.sign == .plus else { return nil }
        var source = value
        var rounded = Decimal()
        NSDecimalRound(&rounded, &source, fractionDigits, .bankers)
        let text = DecimalText.json(rounded)
        let point = text.firstIndex(of: ".")
        let integer = text[..<(point ?? text.endIndex)]
        var fraction = point.map { String(text[text.index(after: $0)...]) } ?? ""
        if fraction.count < fractionDigits { fraction += String(repeating: "0", count: fractionDigits - fraction.count) }
        var out = prefix
        out += grouped(integer)
        if fractionDigits > 0 { out += decimalSeparator + fraction }
        return out + suffix
    }

    /// A non-negative integer (a count) in this layout.
    func format(count: Int64) -> String {
        prefix + grouped(Substring(String(count))) + suffix
    }

    private func grouped(_ digits: Substring) -> String {
        let count = digits.utf8.count
        guard primaryGroup > 0, count >= primaryGroup + minimumGroupingDigits else { return String(digits) }
        var sizes = [primaryGroup]
        var covered = primaryGroup
        while covered < count {
            sizes.append(secondaryGroup)
            covered += secondaryGroup
        }
        var out = ""
        out.reserveCapacity(count + sizes.count * groupingSeparator.utf8.count)
        var index = digits.startIndex
        var leading = count - (covered - sizes[sizes.count - 1])
        for size in sizes.reversed() {
            let take = leading > 0 ? leading : size
            let end = digits.index(index, offsetBy: take)
            if index != digits.startIndex { out += groupingSeparator }
            out += digits[index..<end]
            index = end
            leading = 0
        }
        return out
    }
}
