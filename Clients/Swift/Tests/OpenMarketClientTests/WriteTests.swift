import Foundation
import OpenAPIRuntime
import OpenMarketClient
import Testing

/// Every write through the generated client in its default configuration, in each origin
/// generation: create (JSON with base64 images, and multipart), replay and misuse of an
/// `Idempotency-Key`, update, delete, and the typed problems on the way.
@Suite struct WriteTests {
    @Test(arguments: Generation.allCases)
    func createAsJSONThenReplayUpdateAndDelete(_ generation: Generation) async throws {
        let gateway = try GatewayProcess(generation: generation.rawValue)
        let client = gateway.client()
        let image = try await uploadImage(from: client)
        let key = "client-json-\(generation.rawValue)-\(UUID().uuidString)"
        let draft = Components.Schemas.ProductCreate(
            title: "클라이언트 \(generation.rawValue)", description: "Made by OpenMarketClientTests.",
            price: 12_000, discountedPrice: 9_000, currency: .krw, stock: 5, password: generation.password,
            images: [.init(filename: "photo.png", contentType: "image/png", data: Base64EncodedData(image))])

        let created = try await client.createProduct(headers: .init(idempotencyKey: key), body: .json(draft)).created
        let product = try created.body.json
        #expect(created.headers.location == "/v1/products/\(product.id)")
        #expect(created.headers.idempotentReplayed == nil)
        #expect(product.title == "클라이언트 \(generation.rawValue)")
        #expect(product.description == "Made by OpenMarketClientTests.")
        #expect(product.price == 12_000)
        #expect(product.discountedPrice == 9_000)
        #expect(product.currency == "KRW")
        #expect(product.stock == 5)
        #expect(product.display == .init(price: "KRW 12,000", discountedPrice: "KRW 9,000", discountRate: "25%", stock: "잔여수량: 5"))
        #expect(product.images.count == 1)
        #expect(product.registeredAt.timeIntervalSince1970 == product.registeredAt.timeIntervalSince1970.rounded(.down))

        // The same key and body: the first answer again, nothing created twice.
        let replayed = try await client.createProduct(headers: .init(idempotencyKey: key), body: .json(draft)).created
        #expect(replayed.headers.idempotentReplayed == ._true)
        #expect(try replayed.body.json.id == product.id)
        // The same key with another body: 422.
        var other = draft
        other.stock = 6
        let misused = try await client.createProduct(headers: .init(idempotencyKey: key), body: .json(other))
        let reused = try misused.unprocessableContent.body.applicationProblemJson
        #expect(reused.status == 422)
        #expect(reused._type == "urn:open-market-gateway:problem:idempotency-key-reused")

        #expect(try await client.getProduct(path: .init(id: product.id)).ok.body.json.title == product.title)

        let updated = try await client.updateProduct(
            path: .init(id: product.id), body: .json(.init(title: "바뀐 제목", stock: 7, password: generation.password)))
        let changed = try updated.ok.body.json
        #expect(changed.title == "바뀐 제목")
        #expect(changed.stock == 7)
        #expect(changed.price == 12_000)

        let refused = try await client.updateProduct(
            path: .init(id: product.id), body: .json(.init(title: "x", password: "wrong-password")))
        let forbidden = try refused.forbidden.body.applicationProblemJson
        #expect(forbidden.status == 403)
        #expect(forbidden._type == "urn:open-market-gateway:problem:origin-refused")

        let deleted = try await client.deleteProduct(path: .init(id: product.id), body: .json(.init(password: generation.password)))
        switch deleted {
        case .ok(let ok): #expect(try ok.body.json.id == product.id)
        case .noContent: break
        default: Issue.record("unexpected \(deleted)")
        }
        let gone = try await client.getProduct(path: .init(id: product.id))
        #expect(try gone.notFound.body.applicationProblemJson.status == 404)
    }

    @Test(arguments: Generation.allCases)
    func createAsMultipart(_ generation: Generation) async throws {
        let gateway = try GatewayProcess(generation: generation.rawValue)
        let client = gateway.client()
        let image = try await uploadImage(from: client)
        typealias Part = Operations.CreateProduct.Input.Body.MultipartFormPayload
        let parts: [Part] = [
            .title(.init(payload: .init(body: HTTPBody("멀티파트 \(generation.rawValue)")))),
            .description(.init(payload: .init(body: "Sent as multipart/form-data."))),
            .price(.init(payload: .init(body: "1690.5"))),
            .currency(.init(payload: .init(body: "USD"))),
            .stock(.init(payload: .init(body: "0"))),
            .password(.init(payload: .init(body: HTTPBody(generation.password)))),
            .images(.init(payload: .init(body: HTTPBody(image)), filename: "one.png")),
            .images(.init(payload: .init(body: HTTPBody(image)), filename: "two.png")),
        ]
        let output = try await client.createProduct(body: .multipartForm(.init(parts)))
        let product = try output.created.body.json
        #expect(product.title == "멀티파트 \(generation.rawValue)")
        #expect(product.price == 1690.5)
        #expect(product.discountedPrice == nil)
        #expect(product.currency == "USD")
        #expect(product.isSoldOut)
        #expect(product.display == .init(price: "USD 1,690.50", discountedPrice: nil, discountRate: nil, stock: "품절"))
        #expect(product.images.count == 2)
    }

    @Test(arguments: Generation.allCases)
    func everyFieldErrorAtOnce(_ generation: Generation) async throws {
        let gateway = try GatewayProcess(generation: generation.rawValue)
        let draft = Components.Schemas.ProductCreate(
            title: "", description: "", price: -1, currency: .krw, stock: -1, password: "", images: [])
        let output = try await gateway.client().createProduct(body: .json(draft))
        let problem = try output.badRequest.body.applicationProblemJson
        #expect(problem.status == 400)
        #expect(problem._type == "urn:open-market-gateway:problem:invalid-fields")
        #expect(problem.detail == "6 fields are invalid.")
        #expect(problem.errors == [
            .init(field: "title", message: "title must be 1 to 100 characters long; it has 0."),
            .init(field: "description", message: "description must be 1 to 1000 characters long; it has 0."),
            .init(field: "price", message: "price must not be negative."),
            .init(field: "stock", message: "stock must not be negative."),
            .init(field: "password", message: "password must be 1 to 100 characters long; it has 0."),
            .init(field: "images", message: "Send 1 to 5 images; got 0."),
        ])
    }
}
