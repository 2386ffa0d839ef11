import Testing

@testable import Gateway

@Suite struct KeySetDocumentsTests {
    @Test func discovery() throws {
        #expect(KeySetDocuments.discoveryURL(issuer: "https://id.example.com/") == "https://id.example.com/.well-known/openid-configuration")
        #expect(KeySetDocuments.discoveryURL(issuer: "https://id.example.com/realms/shop") == "https://id.example.com/realms/shop/.well-known/openid-configuration")
        let issuer = "https://id.example.com/realms/shop"
        func read(_ json: String) throws(KeySetDocuments.Problem) -> String {
            try KeySetDocuments.keySetURL(fromDiscovery: Array(json.utf8), issuer: issuer)
        }
        #expect(try read(#"{"issuer":"\#(issuer)","jwks_uri":"https://id.example.com/realms/shop/certs"}"#) == "https://id.example.com/realms/shop/certs")
        #expect(throws: KeySetDocuments.Problem(description: "the discovery document's issuer is not \(issuer) exactly")) {
            try read(#"{"issuer":"\#(issuer)/","jwks_uri":"https://id.example.com/certs"}"#)
        }
        #expect(throws: KeySetDocuments.Problem(description: "jwks_uri is on evil.example, not on the issuer's host id.example.com")) {
            try read(#"{"issuer":"\#(issuer)","jwks_uri":"https://evil.example/certs"}"#)
        }
        #expect(throws: KeySetDocuments.Problem(description: "jwks_uri http://id.example.com/certs must be https (http only on 127.0.0.1, ::1 or localhost)")) {
            try read(#"{"issuer":"\#(issuer)","jwks_uri":"http://id.example.com/certs"}"#)
        }
        #expect(throws: KeySetDocuments.Problem(description: "the discovery document is not a JSON object")) {
            try read(#"{"issuer":"a","issuer":"\#(issuer)","jwks_uri":"https://id.example.com/certs"}"#)
        }
        // A loopback http issuer may name a loopback http key set.
        #expect(try KeySetDocuments.keySetURL(
            fromDiscovery: Array(#"{"issuer":"http://127.0.0.1:8080","jwks_uri":"http://127.0.0.1:8080/jwks"}"#.utf8), issuer: "http://127.0.0.1:8080")
            == "http://127.0.0.1:8080/jwks")
    }

    /// max-age clamped to 60 s to 24 h; 10 minutes without one; no-cache and no-store take the floor.
    @Test func freshness() {
        #expect(KeySetDocuments.freshness(cacheControl: nil) == .seconds(600))
        #expect(KeySetDocuments.freshness(cacheControl: "public, max-age=3600") == .seconds(3600))
        #expect(KeySetDocuments.freshness(cacheControl: "max-age=5") == .seconds(60))
        #expect(KeySetDocuments.freshness(cacheControl: "max-age=9999999") == .seconds(86_400))
        #expect(KeySetDocuments.freshness(cacheControl: "no-cache") == .seconds(60))
        #expect(KeySetDocuments.freshness(cacheControl: "private, must-revalidate") == .seconds(600))
    }

    @Test func urls() throws {
        #expect(try KeySetDocuments.check("https://ID.example.com/x", role: "r") == "id.example.com")
        #expect(try KeySetDocuments.check("http://localhost:9/x", role: "r") == "localhost")
        #expect(throws: KeySetDocuments.Problem(description: "r must not carry user information or a fragment")) {
            try KeySetDocuments.check("https://user:pw@id.example.com/", role: "r")
        }
        #expect(throws: KeySetDocuments.Problem.self) { try KeySetDocuments.check("ftp://id.example.com/", role: "r") }
    }

    /// Which requests judge a token, and which need one.
    @Test func needs() {
        func need(_ required: AuthConfiguration.Required, _ method: String, _ path: String) -> BearerAuthenticator.Need {
            var configuration = AuthConfiguration(issuer: "https://id.example.com/", audiences: ["api"])
            configuration.required = required
            let authenticator = BearerAuthenticator(
                configuration: configuration,
                keys: AuthKeys(source: .file("/dev/null"), refetchSpacing: .seconds(30), retryAfterFailure: .seconds(30), metrics: .init(), logger: .init(label: "t")),
                metrics: .init())
            return Array(method.utf8).withUnsafeBytes { m in Array(path.utf8).withUnsafeBytes { p in authenticator.need(method: m, path: p) } }
        }
        #expect(need(.writes, "GET", "/v1/products") == .optional)
        #expect(need(.writes, "POST", "/v1/products") == .required(write: true))
        #expect(need(.writes, "DELETE", "/v1/products/3") == .required(write: true))
        #expect(need(.all, "GET", "/v1/products/3") == .required(write: false))
        #expect(need(.all, "GET", "/v1/productsX") == .none)
        #expect(need(.all, "GET", "/v1/images/abc") == .none)
        #expect(need(.all, "GET", "/healthz") == .none)
    }

    /// `Authorization` values: the Bearer scheme without case, one or more spaces.
    @Test func bearerTokens() {
        func token(_ value: String) -> String? {
            Array(value.utf8).withUnsafeBytes { BearerAuthenticator.bearerToken($0).map { String(decoding: $0, as: UTF8.self) } }
        }
        #expect(token("Bearer abc.def.ghi") == "abc.def.ghi")
        #expect(token("bearer   abc ") == "abc")
        #expect(token("BEARER abc") == "abc")
        #expect(token("Bearer") == "")
        #expect(token("Basic dXNlcjpwdw==") == nil)
        #expect(token("Bearerabc") == nil)
    }
}
