import GatewaySupport

/// Picks the ``ClientLocale`` for a request from its `Accept-Language` header (RFC 9110 §12.5.4).
///
/// Rules, in order:
/// 1. The header's language ranges are tried by descending q-value (ties keep header order).
///    A range with `q=0` is "not acceptable": it is never chosen, and it also rules out the
///    supported locales it names (`en;q=0` rules out `en-US`). Ranges with a malformed q-value
///    are ignored.
/// 2. A range matches a supported locale when the tags are equal ignoring case (`en-us`), or
///    when the range is a bare language (`en`, `ko`) or names a region we do not support
///    (`en-GB`) and the supported locale has that language. Exact matches win over language ones
///    within the same range.
/// 3. `*` matches the default locale (or the first supported one that is not ruled out).
/// 4. No match, no header, or an unparsable one: the default.
///
/// A value type; `resolve` is pure and thread-safe.
public struct LocaleResolver: Sendable {
    /// The locales responses can be rendered in, in preference order.
    public let supported: [ClientLocale]
    /// What a request gets when nothing in its header matches.
    public let defaultLocale: ClientLocale

    /// - Parameters:
    ///   - supported: at least one locale; `defaultLocale` is added when missing.
    ///   - defaultLocale: ko-KR unless configured.
    public init(supported: [ClientLocale] = [.koKR, .enUS], defaultLocale: ClientLocale = .koKR) {
        self.supported = supported.contains(defaultLocale) ? supported : [defaultLocale] + supported
        self.defaultLocale = defaultLocale
    }

    /// The locale for an `Accept-Language` value (`nil` when the header is absent).
    public func resolve(acceptLanguage: String?) -> ClientLocale {
        guard let acceptLanguage else { return defaultLocale }
        let ranges = AcceptLanguage.parse(acceptLanguage)
        let refused = ranges.filter { $0.quality == 0 }.map(\.tag)
        let allowed = supported.filter { locale in !refused.contains { Self.matches(range: $0, locale: locale) && $0 != "*" } }
        for range in ranges where range.quality > 0 {
            if range.tag == "*" {
                if allowed.contains(defaultLocale) { return defaultLocale }
                if let first = allowed.first { return first }
                continue
            }
            if let exact = allowed.first(where: { $0.identifier.lowercased() == range.tag }) { return exact }
            if let sameLanguage = allowed.first(where: { Self.matches(range: range.tag, locale: $0) }) {
                return sameLanguage
            }
        }
        return defaultLocale
    }

    private static func matches(range: String, locale: ClientLocale) -> Bool {
        if range == "*" { return true }
        if range == locale.identifier.lowercased() { return true }
        let language = range.prefix(while: { $0 != "-" })
        return language == locale.languageCode
    }
}
