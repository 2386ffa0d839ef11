import Foundation

/// A locale the gateway renders display strings for, e.g. `ko-KR` or `en-US`.
///
/// The resolved `ClientLocale`, not the raw `Accept-Language` header, is what keys cached
/// responses: use ``identifier`` (a stable BCP 47 tag such as `ko-KR`) as the cache-key component
/// and as the `Content-Language` value.
public struct ClientLocale: Sendable, Hashable, CustomStringConvertible {
    /// The BCP 47 tag with canonical case: `ko-KR`, `en-US`.
    public let identifier: String
    /// The primary language subtag, lower-case: `ko`, `en`.
    public let languageCode: String
    /// The Foundation locale used by the ICU-backed formatters.
    public let foundationLocale: Locale

    /// Korean in Korea, the default.
    public static let koKR = ClientLocale(canonical: "ko-KR")
    /// English in the United States.
    public static let enUS = ClientLocale(canonical: "en-US")

    /// A locale from a BCP 47 tag such as `ko-KR` or `en_us`; `nil` when it is not
    /// `language(-REGION)?` with a 2–3 letter language and a 2-letter region.
    public init?(tag: String) {
        let parts = tag.split(whereSeparator: { $0 == "-" || $0 == "_" })
        guard (1...2).contains(parts.count),
              (2...3).contains(parts[0].count), parts[0].allSatisfy({ $0.isASCII && $0.isLetter })
        else { return nil }
        var canonical = parts[0].lowercased()
        if parts.count == 2 {
            guard parts[1].count == 2, parts[1].allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
            canonical += "-" + parts[1].uppercased()
        }
        self.init(canonical: canonical)
    }

    private init(canonical: String) {
        identifier = canonical
        languageCode = String(canonical.prefix(while: { $0 != "-" }))
        foundationLocale = Locale(identifier: canonical.replacingOccurrences(of: "-", with: "_"))
    }

    public var description: String { identifier }

    public static func == (lhs: ClientLocale, rhs: ClientLocale) -> Bool {
        lhs.identifier == rhs.identifier
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identifier)
    }
}
