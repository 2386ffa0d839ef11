import Foundation

/// Formats whole counts (stock) with a locale's digit grouping: `1,000,000,000,000`.
///
/// Like ``MoneyFormatter``: ICU's `IntegerFormatStyle` layout is read once into a checked
/// ``NumberPattern``; negative counts, or a layout the pattern cannot express, go to ICU each
/// time. Spaces are normalised to ASCII. A `Sendable` value, shared through ``DisplayFormatters``.
struct CountFormatter: Sendable {
    private let icu: IntegerFormatStyle<Int64>
    private let pattern: NumberPattern?

    init(locale: ClientLocale) {
        let icu = IntegerFormatStyle<Int64>(locale: locale.foundationLocale)
        self.icu = icu
        let decimalStyle = Decimal.FormatStyle(locale: locale.foundationLocale).precision(.fractionLength(0))
        pattern = NumberPattern.derive(fractionDigits: 0) { SpaceNormalisation.normalise(decimalStyle.format($0)) }
    }

    func string(_ count: Int64) -> String {
        if count >= 0, let pattern { return pattern.format(count: count) }
        return SpaceNormalisation.normalise(icu.format(count))
    }
}
