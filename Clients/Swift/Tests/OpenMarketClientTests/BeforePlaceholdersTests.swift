import Foundation
import OpenAPIRuntime
import OpenAPIURLSession
import OpenMarketClientBeforePlaceholders
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An app built before `include=placeholders` (its client generated from the frozen
/// openapi.yaml of `OpenMarketClientBeforePlaceholders`, whose summaries and details refuse
/// unknown members) keeps decoding every read it makes, in each generation, even when other
/// apps ask for the same pages and details with placeholders first; and the same client
/// cannot decode an answer that carries them (so this test could fail).
@Suite struct BeforePlaceholdersTests {
    @Test(arguments: Generation.allCases)
    func anEarlierClientDecodesEveryReadItMakes(_ generation: Generation) async throws {
        let gateway = try GatewayProcess(generation: generation.rawValue)
        let session = GatewayProcess.session
        // Another app's reads with placeholders, first: entries of their own in the caches.
        let withPlaceholders = try await session.data(from: gateway.url.appending(path: "v1/products").appending(queryItems: [
            URLQueryItem(name: "page", value: "1"), URLQueryItem(name: "include", value: "placeholders"),
        ])).0
        #expect(String(decoding: withPlaceholders, as: UTF8.self).contains("\"thumbnailPlaceholders\":["))
        let firstID = generation.firstIDs[0]
        _ = try await session.data(from: gateway.url.appending(path: "v1/products/\(firstID)").appending(queryItems: [
            URLQueryItem(name: "include", value: "placeholders"),
        ]))

        let client = Client(serverURL: gateway.url, transport: URLSessionTransport(configuration: .init(session: session)))
        var details = 0
        for page in 1...3 {
            let answer = try await client.listProducts(query: .init(page: page)).ok.body.json
            #expect(answer.page == page)
            #expect(answer.items.count == 20)
            for item in answer.items.prefix(4) {
                let detail = try await client.getProduct(path: .init(id: item.id)).ok.body.json
                #expect(detail.id == item.id)
                #expect(detail.thumbnails == item.thumbnails)
                details += 1
            }
        }
        #expect(details == 12)
        #expect(try await client.getProduct(path: .init(id: firstID)).ok.body.json.id == firstID)

        // The strictness that makes include opt-in: with the decoding the client uses (RFC 3339
        // dates), the earlier types read the plain page and refuse the one with placeholders.
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let plain = try await session.data(from: gateway.url.appending(path: "v1/products").appending(queryItems: [
            URLQueryItem(name: "page", value: "1"),
        ])).0
        #expect(try decoder.decode(Components.Schemas.ProductPage.self, from: plain).items.count == 20)
        #expect(throws: (any Error).self) {
            try decoder.decode(Components.Schemas.ProductPage.self, from: withPlaceholders)
        }
    }
}
