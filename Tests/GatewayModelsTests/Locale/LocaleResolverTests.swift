import GatewayModels
import Testing
import GatewaySupport

@Suite struct LocaleResolverTests {
    let resolver = LocaleResolver()

    @Test(arguments: [
        (nil, "ko-KR"),
        ("", "ko-KR"),
        ("en-US", "en-US"),
        ("en", "en-US"),
        ("EN-us", "en-US"),
        ("en_US", "en-US"),
        ("en-GB", "en-US"),
        ("ko", "ko-KR"),
        ("fr-FR", "ko-KR"),
        ("fr-FR, en;q=0.5", "en-US"),
        ("ko;q=0.4, en;q=0.8", "en-US"),
        ("en;q=0, *", "ko-KR"),
        ("ko;q=0, *", "en-US"),
        ("ko-KR;q=0, en;q=0", "ko-KR"),
        ("en;q=0", "ko-KR"),
        ("*", "ko-KR"),
        ("de, en-US;q=0.9, ko;q=0.9", "en-US"),
        ("en;q=abc, ko", "ko-KR"),
        ("en;q=1.5", "ko-KR"),
        ("en;q=0.001", "en-US"),
        (";;,,", "ko-KR"),
    ] as [(String?, String)])
    func resolves(header: String?, expected: String) {
        #expect(resolver.resolve(acceptLanguage: header).identifier == expected)
    }

    @Test func theDefaultIsConfigurable() {
        let english = LocaleResolver(defaultLocale: .enUS)
        #expect(english.resolve(acceptLanguage: "ja-JP").identifier == "en-US")
        #expect(english.resolve(acceptLanguage: "ko").identifier == "ko-KR")
        let korean = LocaleResolver(supported: [.enUS], defaultLocale: .koKR)
        #expect(korean.supported == [.koKR, .enUS])
    }

    @Test func clientLocaleIsAStableCacheKey() throws {
        #expect(ClientLocale.koKR.identifier == "ko-KR")
        #expect(ClientLocale(tag: "en_us") == .enUS)
        #expect(try #require(ClientLocale(tag: "ja-jp")).identifier == "ja-JP")
        #expect(ClientLocale(tag: "not a tag") == nil)
        #expect(ClientLocale(tag: "en-USA") == nil)
        #expect(Set([ClientLocale.koKR, ClientLocale(tag: "ko-kr")!]).count == 1)
    }

    @Test func qValuesSortStably() {
        let ranges = AcceptLanguage.parse("da, en-gb;q=0.8, en;q=0.8, *;q=0.1")
        #expect(ranges.map(\.tag) == ["da", "en-gb", "en", "*"])
        #expect(ranges.map(\.quality) == [1, 0.8, 0.8, 0.1])
    }
}

extension LocaleResolverTests {
    @Test func readsABoundedPartOfTheHeader() {
        let filler = Array(repeating: "fr", count: WeightedList.maxElements).joined(separator: ",")
        #expect(resolver.resolve(acceptLanguage: filler + ",en").identifier == "ko-KR")
        #expect(resolver.resolve(acceptLanguage: String(repeating: "x", count: 16_000) + ",en").identifier == "en-US")
        #expect(AcceptLanguage.parse("en;q=0.5000, ko-KR;Q=0.5, *;q=0").map(\.tag) == ["ko-kr", "*"])
    }
}
