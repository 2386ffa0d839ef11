import Foundation
import OpenAPIRuntime
import OpenAPIURLSession
import OpenMarketClient
import Testing

/// Why ``RawHeaderParametersMiddleware`` exists, shown against a real gateway: the bare
/// generated client percent-encodes header parameters, so its conditional GET never matches and
/// a list of languages names none. When this test fails because the bare client gets 304, the
/// runtime has stopped encoding and the middleware can go.
@Suite struct HeaderEncodingTests {
    @Test func aBareGeneratedClientsConditionalGetGetsAFull200() async throws {
        let gateway = try GatewayProcess(generation: Generation.v2b.rawValue)
        let bare = Client(
            serverURL: gateway.url, configuration: Configuration(),
            transport: URLSessionTransport(configuration: .init(session: GatewayProcess.session)))
        // "ko-KR" has only unreserved characters, so the runtime sends it unchanged.
        let first = try await bare.getProduct(path: .init(id: 3), headers: .init(acceptLanguage: "ko-KR")).ok
        let etag = try #require(first.headers.eTag)
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
        let again = try await bare.getProduct(path: .init(id: 3), headers: .init(acceptLanguage: "ko-KR", ifNoneMatch: etag))
        #expect(try again.ok.headers.eTag == etag)
        let english = try await bare.getProduct(path: .init(id: 3), headers: .init(acceptLanguage: "en-US,en;q=0.9"))
        #expect(try english.ok.headers.contentLanguage == "ko-KR")

        // The package's client sends them as written.
        let client = gateway.client(preferredLanguages: ["ko-KR"])
        let revalidated = try await client.getProduct(path: .init(id: 3), headers: .init(ifNoneMatch: etag))
        #expect(try revalidated.notModified.headers.eTag == etag)
        let asked = try await client.getProduct(path: .init(id: 3), headers: .init(acceptLanguage: "en-US,en;q=0.9"))
        #expect(try asked.ok.headers.contentLanguage == "en-US")
    }
}
