/// The `Accept-Language` value for a list of the user's languages.
public enum AcceptLanguage {
    /// At most this many languages are sent; the gateway reads the first 32 elements only.
    public static let maximumCount = 6

    /// `ko-KR, en-US;q=0.9, fr;q=0.8` for `["ko-KR", "en-US", "fr"]`: the first language
    /// without a weight, each next one 0.1 lower (never below 0.1), at most ``maximumCount``.
    ///
    /// Tags are taken as Apple's `Locale.preferredLanguages` gives them (`zh-Hans-CN`);
    /// `_` becomes `-` (`en_US` is Foundation's identifier form). A tag that is not 1 to 35
    /// ASCII letters, digits and hyphens is left out, as is a repeated one. Returns `nil`
    /// when nothing is left: send no header, and the gateway answers in its default locale.
    public static func header(for preferredLanguages: [String]) -> String? {
        var tags: [String] = []
        for language in preferredLanguages {
            let tag = language.replacingUnderscores()
            guard (1...35).contains(tag.utf8.count),
                  tag.utf8.allSatisfy({ $0 == UInt8(ascii: "-") || $0.isASCIIAlphanumeric }),
                  tag.utf8.first != UInt8(ascii: "-"), tag.utf8.last != UInt8(ascii: "-"),
                  !tags.contains(where: { $0.lowercased() == tag.lowercased() })
            else { continue }
            tags.append(tag)
            if tags.count == maximumCount { break }
        }
        guard !tags.isEmpty else { return nil }
        return tags.enumerated().map { index, tag in
            index == 0 ? tag : "\(tag);q=0.\(max(1, 10 - index))"
        }.joined(separator: ", ")
    }
}

extension String {
    fileprivate func replacingUnderscores() -> String {
        String(decoding: utf8.map { $0 == UInt8(ascii: "_") ? UInt8(ascii: "-") : $0 }, as: UTF8.self)
    }
}

extension UInt8 {
    fileprivate var isASCIIAlphanumeric: Bool {
        (48...57).contains(self) || (65...90).contains(self) || (97...122).contains(self)
    }
}
