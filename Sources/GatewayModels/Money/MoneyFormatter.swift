import Foundation

/// Formats amounts of one currency for one locale, ISO-code style: `KRW 1,290,000`, `USD 1,690.00`.
///
/// Built on Foundation's ICU-backed `Decimal.FormatStyle.Currency` with the ISO code
/// presentation, so grouping and separators are the locale's. The number of fraction digits is
/// the currency's ISO 4217 minor units ([`ISO4217`]): JPY and KRW show none, USD two, BHD three.
/// An amount with more fraction digits than that is rounded half-to-even for display only.
///
/// Codes outside the ISO table (the origin's unknown codes are passed through) are shown as the
/// code, a space and the amount with its own fraction digits (at most six).
///
/// Normalisation: ICU puts U+00A0 NO-BREAK SPACE between the code and the number (and some
/// locales group with U+202F or U+00A0). Every such space becomes an ASCII space, so the strings
/// are exactly `KRW 1,290,000` on every platform.
///
/// Speed: at construction the ICU formatter's layout is read into a ``NumberPattern`` and checked
/// against ICU on probe values; formatting then assembles the exact decimal digits by hand
/// (about 10× faster). Negative amounts, unknown codes and layouts the pattern cannot express
/// call ICU every time. Either way the text is ICU's.
///
/// A `Sendable` value: share one per (locale, currency); get it from ``DisplayFormatters``.
/// Formatting never goes through `Double`.
public struct MoneyFormatter: Sendable {
    /// The ISO 4217 code (or the unknown code passed through).
    public let currency: String
    /// The locale whose grouping and separators are used.
    public let locale: ClientLocale
    private let style: Style

    private let pattern: NumberPattern?

    private enum Style: Sendable {
        case iso(Decimal.FormatStyle.Currency)
        case unknown(Decimal.FormatStyle)
    }

    /// Builds the formatter. Prefer ``DisplayFormatters/money(currency:locale:)``, which builds
    /// each pair once.
    public init(currency: String, locale: ClientLocale) {
        self.currency = currency
        self.locale = locale
        if let minorUnits = ISO4217.minorUnits[currency] {
            style = .iso(
                Decimal.FormatStyle.Currency(code: currency, locale: locale.foundationLocale)
                    .presentation(.isoCode)
                    .precision(.fractionLength(minorUnits))
            )
        } else {
            style = .unknown(
                Decimal.FormatStyle(locale: locale.foundationLocale).precision(.fractionLength(0...6))
            )
        }
        if case .iso(let icu) = style, let minorUnits = ISO4217.minorUnits[currency] {
            pattern = NumberPattern.derive(fractionDigits: minorUnits) { SpaceNormalisation.normalise(icu.format($0)) }
        } else {
            pattern = nil
        }
    }

    /// Whether this formatter uses a checked ``NumberPattern`` rather than calling ICU per amount.
    var usesPattern: Bool { pattern != nil }

    /// The display string for `amount`, e.g. `USD 16.90`.
    public func string(_ amount: Decimal) -> String {
        if let pattern, let text = pattern.format(amount) { return text }
        return icuString(amount)
    }

    /// The display string straight from ICU (normalised), bypassing the pattern.
    func icuString(_ amount: Decimal) -> String {
        switch style {
        case .iso(let style): return SpaceNormalisation.normalise(style.format(amount))
        case .unknown(let style): return currency + " " + SpaceNormalisation.normalise(style.format(amount))
        }
    }
}
