@testable import DemoOrigin
import Foundation
import GatewayModels
import TestSupport
import Testing

extension DemoOriginIntegrationTests {
    /// v2/v2b credentials, the two-step deletes, the token override and the counters.
    @Suite struct V2DeleteAndCredentials {
        /// The first delete step of `generation`.
        static func tokenPath(_ generation: OriginGeneration, _ id: Int) -> String {
            "/api/products/\(id)/\(generation == .v2b ? "archived" : "secret")"
        }

        @Test(arguments: [OriginGeneration.v2, .v2b])
        func everyCredentialFailureHasItsStatusAndText(_ generation: OriginGeneration) async throws {
            try await OriginHarness.with(configure: V2.configure(generation)) { origin, port in
                let create = [V2.params(V2.createParams(generation)), V2.image("a.png", Bodies.png())]
                let wrongSecret = [V2.params(V2.createParams(generation, vendor: V2.two)), V2.image("a.png", Bodies.png())]
                let one = #"{"secret":"\#(V2.one.secret)","stock":1}"#
                let two = #"{"secret":"\#(V2.two.secret)","stock":1}"#
                let token = Self.tokenPath(generation, 5)
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    // Item 5 belongs to vendor 2: a token for the second step.
                    let issued = try client.v2JSON("POST", token, V2.two, two).text
                    let deletePath = generation == .v2b ? issued : "/api/products/5/\(issued)"
                    let cases: [(String, () throws -> RawHTTPClient.Response, Int, String)] = [
                        ("create, no identifier", { try client.v2Create(nil, create) }, 400, "identifier header is required"),
                        ("create, empty identifier", { try client.v2Create(nil, create, identifier: "") }, 400, "identifier header is required"),
                        ("create, unknown identifier", { try client.v2Create(nil, create, identifier: "00000000-0000-0000-0000-000000000000") }, 401, "unknown identifier"),
                        ("create, other vendor's secret", { try client.v2Create(V2.one, wrongSecret) }, 400, "secret does not match the identifier"),
                        ("patch, no identifier", { try client.v2JSON("PATCH", "/api/products/5", nil, two) }, 400, "identifier header is required"),
                        ("patch, unknown identifier", {
                            try client.request("PATCH", "/api/products/5", headers: ["identifier: nobody", "Content-Type: application/json"], body: Array(two.utf8))
                        }, 401, "unknown identifier"),
                        ("patch, wrong secret", { try client.v2JSON("PATCH", "/api/products/5", V2.two, one) }, 400, "secret does not match the identifier"),
                        ("patch, no secret", { try client.v2JSON("PATCH", "/api/products/5", V2.two, #"{"stock":1}"#) }, 400, "secret is required"),
                        ("patch, other vendor's product", { try client.v2JSON("PATCH", "/api/products/5", V2.one, one) }, 403, "product belongs to another vendor"),
                        ("token, no identifier", { try client.v2JSON("POST", token, nil, two) }, 400, "identifier header is required"),
                        ("token, unknown identifier", {
                            try client.request("POST", token, headers: ["identifier: nobody", "Content-Type: application/json"], body: Array(two.utf8))
                        }, 401, "unknown identifier"),
                        ("token, wrong secret", { try client.v2JSON("POST", token, V2.two, one) }, 400, "secret does not match the identifier"),
                        ("token, no secret", { try client.v2JSON("POST", token, V2.two, "{}") }, 400, "secret is required"),
                        ("token, not JSON", { try client.v2JSON("POST", token, V2.two, "secret") }, 400, "body must be a JSON object with a secret"),
                        ("token, other vendor's product", { try client.v2JSON("POST", token, V2.one, one) }, 403, "product belongs to another vendor"),
                        ("token, unknown product", { try client.v2JSON("POST", Self.tokenPath(generation, 999), V2.two, two) }, 404, "product not found"),
                        ("delete, no identifier", { try client.request("DELETE", deletePath) }, 400, "identifier header is required"),
                        ("delete, unknown identifier", { try client.request("DELETE", deletePath, headers: ["identifier: nobody"]) }, 401, "unknown identifier"),
                        ("delete, other vendor", { try client.request("DELETE", deletePath, headers: V2.identifier(V2.one)) }, 403, "product belongs to another vendor"),
                    ]
                    for (name, send, status, reason) in cases {
                        let response = try send()
                        #expect(response.status == status, "\(name)")
                        #expect(response.header("Content-Type") == "text/plain; charset=utf-8", "\(name)")
                        #expect(response.text == reason, "\(name)")
                    }
                    // None of that used up the token.
                    #expect(try client.request("DELETE", deletePath, headers: V2.identifier(V2.two)).status == 200)
                }
                #expect(origin.items.count == 126)
                #expect(origin.item(id: 5) == nil)
            }
        }

        @Test func v2DeleteIsSecretThenDeleteWithTheProductSecret() async throws {
            try await OriginHarness.with(configure: V2.configure(.v2)) { origin, port in
                let secret = #"{"secret":"\#(V2.two.secret)"}"#
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let detail = try client.request("GET", "/api/products/10")
                    let issued = try client.v2JSON("POST", "/api/products/10/secret", V2.two, secret)
                    #expect(issued.status == 200)
                    #expect(issued.header("Content-Type") == "text/plain; charset=utf-8")
                    let token = issued.text
                    #expect(try /[0-9a-f]{32}/.wholeMatch(in: token) != nil)
                    // The vendor secret is not the product secret; nor is another product's.
                    let withVendorSecret = try client.request("DELETE", "/api/products/10/\(V2.two.secret)", headers: V2.identifier(V2.two))
                    #expect(withVendorSecret.status == 400)
                    #expect(withVendorSecret.text == "wrong product secret")
                    let otherToken = try client.v2JSON("POST", "/api/products/15/secret", V2.two, secret).text
                    #expect(try client.request("DELETE", "/api/products/10/\(otherToken)", headers: V2.identifier(V2.two)).text == "wrong product secret")
                    #expect(try client.request("DELETE", "/api/products/15/\(token)", headers: V2.identifier(V2.two)).text == "wrong product secret")
                    let deleted = try client.request("DELETE", "/api/products/10/\(token)", headers: V2.identifier(V2.two))
                    #expect(deleted.status == 200)
                    #expect(deleted.header("Content-Type") == "application/json")
                    #expect(deleted.body == detail.body)
                    #expect(try client.request("GET", "/api/products/10").status == 404)
                    let again = try client.request("DELETE", "/api/products/10/\(token)", headers: V2.identifier(V2.two))
                    #expect(again.status == 404)
                    #expect(again.text == "product not found")
                    // Product 15's token still works, once.
                    #expect(try client.request("DELETE", "/api/products/15/\(otherToken)", headers: V2.identifier(V2.two)).status == 200)
                    // v2b's steps are not routes here.
                    #expect(try client.v2JSON("POST", "/api/products/20/archived", V2.two, secret).text == "not found")
                }
                #expect(origin.items.count == 125)
            }
        }

        @Test func v2bDeleteIsArchivedThenDeleteTheURI() async throws {
            try await OriginHarness.with(configure: V2.configure(.v2b)) { origin, port in
                let secret = #"{"secret":"\#(V2.one.secret)"}"#
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let detail = try client.request("GET", "/api/products/1")
                    let archived = try client.v2JSON("POST", "/api/products/1/archived", V2.one, secret)
                    #expect(archived.status == 200)
                    #expect(archived.header("Content-Type") == "text/plain; charset=utf-8")
                    let uri = archived.text
                    #expect(try /\/api\/products\/[0-9a-f]{32}/.wholeMatch(in: uri) != nil)
                    let unknown = try client.request("DELETE", "/api/products/0123456789abcdef0123456789abcdef", headers: V2.identifier(V2.one))
                    #expect(unknown.status == 404)
                    #expect(unknown.text == "product not found")
                    // A product id is not a token.
                    #expect(try client.request("DELETE", "/api/products/1", headers: V2.identifier(V2.one)).status == 404)
                    let deleted = try client.request("DELETE", uri, headers: V2.identifier(V2.one))
                    #expect(deleted.status == 200)
                    #expect(deleted.body == detail.body)
                    #expect(try client.request("GET", "/api/products/1").text == "product not found")
                    let again = try client.request("DELETE", uri, headers: V2.identifier(V2.one))
                    #expect(again.status == 404)
                    #expect(again.text == "product not found")
                    // v2's steps are not routes here.
                    #expect(try client.v2JSON("POST", "/api/products/2/secret", V2.one, secret).text == "not found")
                }
                #expect(origin.item(id: 1) == nil)
                #expect(origin.items.count == 126)
            }
        }

        @Test(arguments: [(OriginGeneration.v2, "../../x"), (.v2b, "https://evil.example/x")])
        func theOverrideIsAnsweredInsteadOfAToken(_ generation: OriginGeneration, _ hostile: String) async throws {
            try await OriginHarness.with(configure: V2.configure(generation)) { origin, port in
                let path = Self.tokenPath(generation, 2)
                let secret = #"{"secret":"\#(V2.one.secret)"}"#
                origin.setDeleteTokenOverride(hostile)
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let answered = try client.v2JSON("POST", path, V2.one, secret)
                    #expect(answered.status == 200)
                    #expect(answered.header("Content-Type") == "text/plain; charset=utf-8")
                    #expect(answered.text == hostile)
                    // The checks still come first.
                    #expect(try client.v2JSON("POST", path, V2.one, #"{"secret":"nope"}"#).text == "secret does not match the identifier")
                }
                origin.setDeleteTokenOverride(nil)
                let real = try await offPool { try RawHTTPClient(port: port).v2JSON("POST", path, V2.one, secret).text }
                #expect(real != hostile)
                #expect(real.hasPrefix(generation == .v2b ? "/api/products/" : "") && real.count == (generation == .v2b ? 46 : 32))
                origin.setDeleteTokenOverride(hostile)
                origin.reset()
                #expect(try await offPool { try RawHTTPClient(port: port).v2JSON("POST", path, V2.one, secret).text } != hostile)
            }
        }

        @Test func countsRecordEveryV2RouteByPattern() async throws {
            try await OriginHarness.with(configure: V2.configure(.v2)) { origin, port in
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    _ = try client.request("GET", "/healthChecker")
                    _ = try client.request("GET", "/api/products?page_no=1&items_per_page=10")
                    _ = try client.request("GET", "/api/products/3")
                    _ = try client.v2Create(V2.one, [V2.params(V2.createParams(.v2)), V2.image("a.png", Bodies.png())])
                    _ = try client.v2JSON("PATCH", "/api/products/128", V2.one, #"{"secret":"\#(V2.one.secret)","stock":2}"#)
                    let token = try client.v2JSON("POST", "/api/products/128/secret", V2.one, #"{"secret":"\#(V2.one.secret)"}"#).text
                    _ = try client.request("DELETE", "/api/products/128/\(token)", headers: V2.identifier(V2.one))
                    _ = try client.request("GET", "/items/1")
                    let counts = origin.counts
                    #expect(counts.routes == [
                        "GET /healthChecker": 1, "GET /api/products": 1, "GET /api/products/{id}": 1, "POST /api/products": 1,
                        "PATCH /api/products/{id}": 1, "POST /api/products/{id}/secret": 1, "DELETE /api/products/{id}/{product_secret}": 1,
                        "GET (unmatched)": 1,
                    ])
                    #expect(counts.count("GET", "/api/products") == 1)
                    #expect(counts.count("POST", "/api/products/128/secret") == 1)
                    #expect(counts.count("DELETE", "/api/products/128/\(token)") == 1)
                    #expect(counts.total == 8)
                }
            }
            try await OriginHarness.with(configure: V2.configure(.v2b)) { origin, port in
                try await offPool {
                    let client = try RawHTTPClient(port: port)
                    let uri = try client.v2JSON("POST", "/api/products/4/archived", V2.one, #"{"secret":"\#(V2.one.secret)"}"#).text
                    _ = try client.request("DELETE", uri, headers: V2.identifier(V2.one))
                    #expect(origin.counts.routes == ["POST /api/products/{id}/archived": 1, "DELETE /api/products/{token}": 1])
                    #expect(origin.counts.route("DELETE", "/api/products/{token}") == 1)
                    #expect(origin.counts.count("DELETE", uri) == 1)
                }
            }
        }
    }
}
