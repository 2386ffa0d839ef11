@testable import BodyCompression
import Foundation
@testable import Gateway
import GatewayModels
@testable import HTTPInterface
@testable import Observability
@testable import Routing
import Testing

/// The write handlers (`ProductWrites`) driven without a server or sockets, against a
/// `FakeOrigin`: the v2/v2b delete sequences, what is never followed, and `Idempotency-Key`.
@Suite struct ProductWritesHandlerTests {
    static let product = try! HandlerHarness.fixture("v2-product.json")
    static let vendor = "0d0a4b3c-1111-2222-3333-444455556666"
    static let json: HTTPHeaders = ["Content-Type": "application/json"]

    static func harness(_ generation: OriginGeneration, answer: @escaping FakeOrigin.Answer) throws -> HandlerHarness {
        let endpoint = try OriginEndpoint(url: "http://origin.test")
        let reads = ProductReads(endpoint: endpoint, generation: generation, configuration: ReadPathConfiguration(), compression: ResponseCompression(), metrics: GatewayMetrics(presets: GatewayMetrics.gatewayPresets))
        let writes = ProductWrites(endpoint: endpoint, generation: generation, vendorIdentifier: vendor, reads: reads)
        var router = Router()
        reads.register(in: &router)
        writes.register(in: &router)
        return HandlerHarness(router: router, answer: answer)
    }

    static func text(_ body: String, status: Int = 200) -> Result<OriginResponse, OriginFailure> {
        .success(OriginResponse(status: status, headers: ["Content-Type": "text/plain"], body: Array(body.utf8)))
    }

    static func delete(_ harness: HandlerHarness, id: Int) async -> GatewayResponse {
        await harness.start(GatewayRequest(method: .delete, path: "/v1/products/\(id)", headers: json, body: Array(#"{"password":"vendor-secret"}"#.utf8)))
            .response
    }

    /// v2: the product's delete secret first (`POST …/secret` with the vendor secret), then
    /// `DELETE …/{secret}`; the answer is the deleted product.
    @Test func aV2DeleteAsksForTheSecretThenDeletesWithIt() async throws {
        let harness = try Self.harness(.v2) { request in
            request.method == .post ? Self.text("6f1c-secret") : FakeOrigin.ok(Self.product)
        }
        let response = await Self.delete(harness, id: 16)
        #expect(response.status == 200)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        #expect(json["id"] as? Int == 16)
        let requests = harness.origin.requests
        #expect(requests.map(\.method) == [.post, .delete])
        #expect(requests.map(\.target) == ["/api/products/16/secret", "/api/products/16/6f1c-secret"])
        #expect(String(decoding: requests[0].body, as: UTF8.self) == #"{"secret":"vendor-secret"}"#)
        #expect(requests.allSatisfy { $0.headers["identifier"] == Self.vendor })
    }

    /// v2b: `POST …/archived` answers the address to delete, which is followed only when it is
    /// exactly `/api/products/{token}`.
    @Test func aV2bDeleteFollowsTheArchivedAddress() async throws {
        let harness = try Self.harness(.v2b) { request in
            request.method == .post ? Self.text("/api/products/dGVzdA==") : FakeOrigin.ok(Self.product)
        }
        let response = await Self.delete(harness, id: 16)
        #expect(response.status == 200)
        #expect(harness.origin.requests.map(\.target) == ["/api/products/16/archived", "/api/products/dGVzdA=="])
    }

    /// An answer that is no delete address the gateway may follow ends the delete: 502, and
    /// nothing more is asked.
    @Test(arguments: ["https://evil.example/api/products/x", "/api/products/../admin", "/api/products/a/b"])
    func anAddressThatIsNotADeleteAddressIsNotFollowed(_ address: String) async throws {
        let harness = try Self.harness(.v2b) { _ in Self.text(address) }
        let response = await Self.delete(harness, id: 16)
        #expect(response.status == 502)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(harness.origin.requests.map(\.target) == ["/api/products/16/archived"])
    }

    /// v2: an update of only the buyer's price needs the list price the origin has now (never
    /// the cache's): it is read first, then the discount amount is sent.
    @Test func aV2UpdateOfOnePriceReadsTheOriginsPricesFirst() async throws {
        let harness = try Self.harness(.v2) { _ in FakeOrigin.ok(Self.product) }
        let response = await harness.start(GatewayRequest(
            method: .patch, path: "/v1/products/16", headers: Self.json, body: Array(#"{"discountedPrice":1500,"password":"vendor-secret"}"#.utf8))
        ).response
        #expect(response.status == 200)
        let requests = harness.origin.requests
        #expect(requests.map(\.method) == [.get, .patch])
        #expect(requests.map(\.target) == ["/api/products/16", "/api/products/16"])
        let sent = try #require(try JSONSerialization.jsonObject(with: Data(requests[1].body)) as? [String: Any])
        #expect(sent["discounted_price"] as? Int == 500, "the sample's price is 2000: 2000 - 1500")
        #expect(sent["secret"] as? String == "vendor-secret")
        #expect(requests[0].body.isEmpty)
    }

    /// The same `Idempotency-Key` and body again: the first answer, replayed, and one origin
    /// request in all.
    @Test func aRepeatedIdempotencyKeyReplaysTheFirstAnswer() async throws {
        let harness = try Self.harness(.v2) { _ in FakeOrigin.ok(Self.product) }
        let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
        let body = Array(
            #"{"title":"새 상품","description":"설명","price":1000,"currency":"KRW","stock":3,"password":"vendor-secret","images":[{"data":"\#(png)"}]}"#
                .utf8)
        var headers = Self.json
        headers.add("Idempotency-Key", "create-7f3a")
        let first = await harness.start(GatewayRequest(method: .post, path: "/v1/products", headers: headers, body: body)).response
        let second = await harness.start(GatewayRequest(method: .post, path: "/v1/products", headers: headers, body: body)).response
        #expect(first.status == 201)
        #expect(second.status == 201)
        #expect(second.body == first.body)
        #expect(first.headers["Idempotent-Replayed"] == nil)
        #expect(second.headers["Idempotent-Replayed"] == "true")
        #expect(harness.origin.requests.map(\.target) == ["/api/products"])
    }
}
