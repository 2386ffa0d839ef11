import Foundation
import OpenAPIRuntime
import OpenMarketClient
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The examples of docs/swift-client.md and the README, as code that compiles and runs
/// against a gateway: if the generated API changes under them, this fails.
@Suite struct DocsExampleTests {
    enum ShopError: Error, Equatable {
        case slowDown(seconds: Int)
        case invalid([Components.Schemas.FieldError])
        case unavailable
    }

    /// docs/swift-client.md, "A list screen".
    static func loadPage(_ page: Int, client: Client) async throws -> Components.Schemas.ProductPage {
        switch try await client.listProducts(query: .init(page: page, pageSize: 20)) {
        case .ok(let ok):
            return try ok.body.json
        case .tooManyRequests(let limited):
            throw ShopError.slowDown(seconds: Int(limited.headers.retryAfter ?? "1") ?? 1)
        case .badRequest(let bad):
            throw ShopError.invalid(try bad.body.applicationProblemJson.errors ?? [])
        default:
            throw ShopError.unavailable
        }
    }

    @Test func theListScreenAndItsThumbnails() async throws {
        let gateway = try GatewayProcess(generation: Generation.v2b.rawValue)
        let serverURL = gateway.url
        let client = gateway.client()
        let page = try await Self.loadPage(1, client: client)
        #expect(page.items.count == 20)
        let request = try #require(ImageSizing.contractDefault.request(
            for: page.items[0].thumbnails[0], serverURL: serverURL, points: 100, scale: 3))
        #expect(request.url?.query?.hasSuffix("w=320") == true)
        let (data, response) = try await GatewayProcess.session.data(for: request)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Type") == "image/avif")
        #expect(data.count > 0)
        await #expect(throws: ShopError.invalid([.init(field: "page", message: "must be a whole number from 1 to 10000.")])) {
            try await Self.loadPage(0, client: client)
        }
    }

    /// docs/swift-client.md, "Errors arrive as typed problems": the switch over a create.
    @Test func theCreateSwitch() async throws {
        let gateway = try GatewayProcess(generation: Generation.v1.rawValue)
        let client = gateway.client()
        let jpeg = try await uploadImage(from: client)
        let output = try await client.createProduct(
            headers: .init(idempotencyKey: UUID().uuidString),
            body: .json(.init(title: "", description: "text", price: 12_000, currency: .krw,
                              stock: 5, password: "pw",
                              images: [.init(filename: "photo.png", data: Base64EncodedData(jpeg))])))
        var marked: [Components.Schemas.FieldError] = []
        switch output {
        case .badRequest(let bad): marked = try bad.body.applicationProblemJson.errors ?? []
        default: Issue.record("unexpected \(output)")
        }
        #expect(marked == [.init(field: "title", message: "title must be 1 to 100 characters long; it has 0.")])
    }
}
