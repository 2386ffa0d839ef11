import Foundation
import GatewaySupport

/// The process-wide cache of display formatters: one ``MoneyFormatter`` per (locale, currency)
/// and one count style per locale, each built on first use and then shared.
///
/// Thread-safety: every member may be called from any thread at once. The dictionaries sit
/// behind a `Locked`; the lock is held only for the lookup or the insert, never while
/// formatting, and the cached values are immutable `Sendable` values. (Foundation in turn keeps
/// the ICU formatter behind each format style in its own cache, so the expensive ICU object is
/// also opened once per style.)
public enum DisplayFormatters {
    private struct MoneyKey: Hashable, Sendable {
        let currency: String
        let locale: String
    }

    private static let moneyCache = Locked<[MoneyKey: MoneyFormatter]>([:])
    private static let countCache = Locked<[String: CountFormatter]>([:])

    /// The shared formatter for `currency` in `locale`.
    public static func money(currency: String, locale: ClientLocale) -> MoneyFormatter {
        let key = MoneyKey(currency: currency, locale: locale.identifier)
        if let cached = moneyCache.withLock({ $0[key] }) { return cached }
        let made = MoneyFormatter(currency: currency, locale: locale)
        return moneyCache.withLock { cache in
            if let raced = cache[key] { return raced }
            cache[key] = made
            return made
        }
    }

    /// `count` with the locale's digit grouping (`1,000,000` in ko-KR and en-US), ASCII spaces.
    public static func count(_ count: Int64, locale: ClientLocale) -> String {
        let key = locale.identifier
        let formatter: CountFormatter
        if let cached = countCache.withLock({ $0[key] }) {
            formatter = cached
        } else {
            let made = CountFormatter(locale: locale)
            countCache.withLock { $0[key] = made }
            formatter = made
        }
        return formatter.string(count)
    }
}
