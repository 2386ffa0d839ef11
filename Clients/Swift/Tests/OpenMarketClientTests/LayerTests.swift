import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenMarketClient
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The hand-written layer on its own: no gateway, no sockets.
@Suite struct LayerTests {
    @Test func acceptLanguageWeighsTheDevicesLanguagesInOrder() {
        #expect(AcceptLanguage.header(for: ["ko-KR", "en-US", "fr"]) == "ko-KR, en-US;q=0.9, fr;q=0.8")
        #expect(AcceptLanguage.header(for: ["en_US", "zh-Hans-CN"]) == "en-US, zh-Hans-CN;q=0.9")
        // Repeats (in any case), bad tags and tags past the sixth are left out.
        #expect(AcceptLanguage.header(for: ["ko", "KO", "", "-x", "x-", "a b", "en;q=1", String(repeating: "a", count: 36), "ja"]) == "ko, ja;q=0.9")
        #expect(AcceptLanguage.header(for: ["a", "b", "c", "d", "e", "f", "g"]) == "a, b;q=0.9, c;q=0.8, d;q=0.7, e;q=0.6, f;q=0.5")
        #expect(AcceptLanguage.header(for: []) == nil)
        #expect(AcceptLanguage.header(for: ["ä"]) == nil)
    }

    @Test func theSmallestWidthThatCoversTheView() throws {
        let sizing = ImageSizing.contractDefault
        #expect(sizing.widths == [160, 320, 480, 640, 960, 1280])
        #expect(sizing.width(points: 100, scale: 3) == 320)
        #expect(sizing.width(points: 53.4, scale: 3) == 320)
        #expect(sizing.width(points: 53.3, scale: 3) == 160)
        #expect(sizing.width(points: 160, scale: 1) == 160)
        #expect(sizing.width(points: 430, scale: 3) == 1280)
        #expect(sizing.width(points: 0, scale: 2) == 160)
        #expect(sizing.width(points: .infinity, scale: 2) == 1280)
        let custom = try #require(ImageSizing(widths: [400, 200, 200]))
        #expect(custom.widths == [200, 400])
        #expect(custom.width(points: 150, scale: 2) == 400)
        #expect(ImageSizing(widths: []) == nil)
        #expect(ImageSizing(widths: [0, 100]) == nil)
    }

    @Test func imageURLsAreResolvedAndGetW() throws {
        let sizing = ImageSizing.contractDefault
        let server = try #require(URL(string: "https://api.example.com"))
        #expect(sizing.url(for: "/v1/images/AbC-_1", serverURL: server, points: 100, scale: 3)?.absoluteString
                == "https://api.example.com/v1/images/AbC-_1?w=320")
        // A --public-url answer is absolute; an existing w is replaced, other items kept.
        #expect(sizing.url(for: "https://cdn.example.net/v1/images/T?w=1280&x=1", serverURL: server, points: 80, scale: 2)?.absoluteString
                == "https://cdn.example.net/v1/images/T?x=1&w=160")
        let request = try #require(sizing.request(for: "/v1/images/T", serverURL: server, points: 300, scale: 2))
        #expect(request.url?.absoluteString == "https://api.example.com/v1/images/T?w=640")
        #expect(request.value(forHTTPHeaderField: "Accept") == ImageFormats.acceptHeader)
    }

    @Test func acceptNamesOnlyWhatTheSystemDecodes() {
        #expect(ImageFormats.acceptHeader(avif: true, webp: true) == "image/avif,image/webp,image/*;q=0.8")
        #expect(ImageFormats.acceptHeader(avif: false, webp: true) == "image/webp,image/*;q=0.8")
        #expect(ImageFormats.acceptHeader(avif: false, webp: false) == "image/*")
        #expect(ImageFormats.acceptableContentTypes(avif: false, webp: true).map(\.rawValue)
                == ["image/webp", "image/jpeg; q=0.800", "image/png; q=0.800", "image/gif; q=0.800", "application/problem+json"])
    }

    @Test func theMiddlewaresSetAndUnescapeHeaders() async throws {
        let request = HTTPRequest(method: .get, scheme: "https", authority: "api.example.com", path: "/v1/products/3", headerFields: [
            .ifNoneMatch: "%22c23922c6027435e3%22", HTTPField.Name("Idempotency-Key")!: "a%2525b", .accept: "application/json",
            HTTPField.Name("X-Request-ID")!: "%zz",
        ])
        let sent = try await Self.send(request, through: RawHeaderParametersMiddleware())
        #expect(sent.headerFields[.ifNoneMatch] == "\"c23922c6027435e3\"")
        #expect(sent.headerFields[HTTPField.Name("Idempotency-Key")!] == "a%25b")
        #expect(sent.headerFields[HTTPField.Name("X-Request-ID")!] == "%zz")
        #expect(sent.headerFields[.accept] == "application/json")

        let languages = AcceptLanguageMiddleware(preferredLanguages: ["en-US", "ko-KR"])
        #expect(try await Self.send(request, through: languages).headerFields[.acceptLanguage] == "en-US, ko-KR;q=0.9")
        var asked = request
        asked.headerFields[.acceptLanguage] = "ko"
        #expect(try await Self.send(asked, through: languages).headerFields[.acceptLanguage] == "ko")
        #expect(try await Self.send(request, through: AcceptLanguageMiddleware(preferredLanguages: [])).headerFields[.acceptLanguage] == nil)
    }

    /// The request `middleware` hands on.
    static func send(_ request: HTTPRequest, through middleware: some ClientMiddleware) async throws -> HTTPRequest {
        let server = URL(string: "https://api.example.com")!
        let seen = SeenRequest()
        _ = try await middleware.intercept(request, body: nil, baseURL: server, operationID: "test") { request, _, _ in
            seen.request = request
            return (HTTPResponse(status: .ok), nil)
        }
        return try #require(seen.request)
    }
}

private final class SeenRequest: @unchecked Sendable {
    var request: HTTPRequest?
}
