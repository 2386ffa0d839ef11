import Foundation
@testable import Gateway
import GatewayModels
import TestSupport
import Testing
import GatewaySupport

extension IntegrationTests {
    /// Sign-in at the edge (`--auth-*`): bearer tokens verified against a test identity
    /// provider's key set, found by discovery, on a real gateway in front of the demo origin.
    @Suite struct SignIn {
        /// Runs `body` with a provider holding key `k1` and a gateway configured for it.
        private func with(
            tls: Bool = false, trusted: Bool = true,
            required: AuthConfiguration.Required = .writes, spacing: Duration = .seconds(30), writeScope: String? = nil,
            limits: (inout RateLimitConfiguration) -> Void = { _ in },
            provider prepare: (TestIdentityProvider) -> Void = { $0.addKey("k1") },
            _ body: (TestIdentityProvider, ReadPathHarness) async throws -> Void
        ) async throws {
            let provider = try TestIdentityProvider(tls: tls)
            defer { provider.shutdown() }
            prepare(provider)
            try await ReadPathHarness.with(configure: { configuration in
                provider.configure(&configuration, required: required, spacing: spacing)
                configuration.auth?.writeScope = writeScope
                limits(&configuration.rateLimits)
                if !trusted { configuration.auth?.caFile = nil }
            }) { harness in
                try await body(provider, harness)
            }
        }

        private func request(_ port: Int, _ target: String, method: String = "GET", token: String? = nil) async throws -> RawHTTPClient.Response {
            try await offPool {
                let client = try RawHTTPClient(port: port)
                defer { client.close() }
                return try client.request(method, target, headers: token.map { ["Authorization: Bearer \($0)"] } ?? [])
            }
        }

        private func readiness(_ port: Int) async throws -> String? {
            try await request(port, "/readyz").json()["authKeys"] as? String
        }

        /// Waits (at most about 10 s) until the gateway holds the provider's key set: its
        /// `/readyz` says `fresh`. The provider counts its answer before the gateway has read
        /// and taken the set, and until then a token on a read is not looked at (the read goes
        /// on as anonymous): a test that sent one at once failed under ASan's slowness.
        private func keysLoaded(_ provider: TestIdentityProvider, _ port: Int) async throws -> Bool {
            guard try await poll(for: .seconds(5), until: { provider.keySetFetches == 1 }) else { return false }
            return try await poll(every: .milliseconds(10), for: .seconds(5)) { try await readiness(port) == "fresh" }
        }

        private func problemDetail(_ response: RawHTTPClient.Response) throws -> String? {
            try response.json()["detail"] as? String
        }

        @Test func verifiesTokensAndAnswersEachRefusal() async throws {
            try await with { provider, harness in
                let port = harness.port
                #expect(try await harness.wait { harness.server.configuration.auth != nil })
                #expect(try await keysLoaded(provider, port))
                #expect(try await readiness(port) == "fresh")
                // Reads need no token (writes mode); a valid one is accepted, a bad one is 401.
                #expect(try await request(port, "/v1/products/1").status == 200)
                #expect(try await request(port, "/v1/products/1", token: provider.token(kid: "k1")).status == 200)
                let expired = try await request(port, "/v1/products/1", token: provider.token(kid: "k1", expiresIn: -61))
                #expect(expired.status == 401)
                #expect(expired.header("WWW-Authenticate") == #"Bearer error="invalid_token""#)
                #expect(try problemDetail(expired) == "The bearer token has expired (exp).")
                let audience = try await request(port, "/v1/products/1", token: provider.token(kid: "k1", audience: "account"))
                #expect(try problemDetail(audience) == "The bearer token is not meant for this API (aud).")
                let duplicate = try await request(port, "/v1/products/1", token: provider.token(kid: "k1", extra: #""sub":"admin""#))
                #expect(try problemDetail(duplicate) == "The bearer token is not a signed JWT: its claims are not valid JSON (duplicate key).")
                // A write without a token: a bare challenge.
                let missing = try await request(port, "/v1/products/1", method: "DELETE")
                #expect(missing.status == 401)
                #expect(missing.header("WWW-Authenticate") == "Bearer")
                // Images, health and metrics never look at a token.
                #expect(try await request(port, "/healthz", token: "not-a-token").status == 200)
                // The token is in no answer.
                let token = provider.token(kid: "k1", expiresIn: -61)
                let refused = try await request(port, "/v1/products/2", token: token)
                #expect(!String(decoding: refused.body, as: UTF8.self).contains(token.suffix(20)))
            }
        }

        /// A forged signature is checked once and then remembered: the second copy costs no
        /// verification (the counter of judged tokens does not move).
        @Test func forgeriesAreRememberedAndVerifiedTokensToo() async throws {
            try await with { (provider: TestIdentityProvider, harness: ReadPathHarness) async throws in
                let port = harness.port
                #expect(try await keysLoaded(provider, port))
                let good = provider.token(kid: "k1")
                let parts = good.split(separator: ".")
                let forged: String = "\(parts[0]).\(parts[1])." + Base64URL.encode([UInt8](repeating: 7, count: 64))
                for _ in 0..<2 {
                    #expect(try await request(port, "/v1/products/1", token: forged).status == 401)
                    #expect(try await request(port, "/v1/products/1", token: good).status == 200)
                }
                let metrics = String(decoding: harness.metrics.render(), as: UTF8.self)
                #expect(metrics.contains(#"gateway_auth_tokens_total{outcome="bad_signature"} 1"#))
                #expect(metrics.contains(#"gateway_auth_tokens_total{outcome="verified"} 1"#))
            }
        }

        /// An unknown `kid` fetches the set once; a rotated key is accepted after that fetch;
        /// a second unknown `kid` within the spacing fetches nothing; a key removed from the
        /// set takes its remembered tokens with it.
        @Test func unknownKeysRefetchAtMostOnceInTheSpacing() async throws {
            try await with(spacing: .seconds(2)) { provider, harness in
                let port = harness.port
                #expect(try await keysLoaded(provider, port))
                let old = provider.token(kid: "k1")
                #expect(try await request(port, "/v1/products/1", token: old).status == 200)
                // Rotation: k2 is published and signs; the first request with it waits for
                // one refetch (past the spacing since the first load) and passes.
                try await Task.sleep(for: .seconds(2.1))
                provider.addKey("k2")
                provider.publish(["k2"])
                #expect(try await request(port, "/v1/products/1", token: provider.token(kid: "k2")).status == 200)
                #expect(provider.keySetFetches == 2)
                // k1 left the set: its remembered token no longer passes.
                let removed = try await request(port, "/v1/products/1", token: old)
                #expect(removed.status == 401)
                #expect(try problemDetail(removed) == "The bearer token's key (kid) is not in the identity provider's key set.")
                // Another unknown kid within the spacing: no fetch.
                provider.addKey("k3", publish: false)
                #expect(try await request(port, "/v1/products/1", token: provider.token(kid: "k3")).status == 401)
                #expect(try await request(port, "/v1/products/1", token: provider.token(kid: "k4")).status == 401)
                #expect(provider.keySetFetches == 2)
            }
        }

        /// The provider down: before any set, a request that needs a token gets 503 with
        /// Retry-After and readiness says `missing`; once loaded and then down again, the
        /// cached keys keep verifying and readiness says `stale`. A malformed key in the set is
        /// skipped.
        @Test func providerDownMissingThenStale() async throws {
            try await with(spacing: .milliseconds(200), provider: { provider in
                provider.addKey("k1")
                provider.setDown(true)
                provider.state.extraMembers.withLock { $0 = [#"{"kty":"EC","kid":"bad","crv":"P-256","x":"AA","y":"AA"}"#] }
            }) { provider, harness in
                let port = harness.port
                #expect(try await poll(for: .seconds(5)) { provider.keySetFetches >= 1 })
                #expect(try await readiness(port) == "missing")
                let unavailable = try await request(port, "/v1/products/1", method: "DELETE", token: provider.token(kid: "k1"))
                #expect(unavailable.status == 503)
                #expect(unavailable.header("Retry-After") == "5")
                // A read with a token where none is needed goes on as anonymous.
                #expect(try await request(port, "/v1/products/1", token: provider.token(kid: "k1")).status == 200)
                provider.setDown(false)
                #expect(try await poll(for: .seconds(5)) { harness.metrics.render().count > 0 && (try? readinessSync(port)) == "fresh" })
                provider.setDown(true)
                // An unknown kid makes a fetch, which fails: the set is stale, k1 still verifies.
                try await Task.sleep(for: .milliseconds(250))
                #expect(try await request(port, "/v1/products/1", token: provider.token(kid: "k9")).status == 401)
                #expect(try await readiness(port) == "stale")
                #expect(try await request(port, "/v1/products/3", token: provider.token(kid: "k1")).status == 200)
                let metrics = String(decoding: harness.metrics.render(), as: UTF8.self)
                #expect(metrics.contains("gateway_auth_key_set_failures_total"))
            }
        }

        private func readinessSync(_ port: Int) throws -> String? {
            let client = try RawHTTPClient(port: port)
            defer { client.close() }
            return try client.request("GET", "/readyz").json()["authKeys"] as? String
        }

        /// `--auth-required all`: reads need a token, and their answers (stored ones too) are
        /// private; images and health stay open.
        @Test func requiredEverywhereMakesAnswersPrivate() async throws {
            try await with(required: .all) { provider, harness in
                let port = harness.port
                #expect(try await keysLoaded(provider, port))
                let none = try await request(port, "/v1/products?page=1")
                #expect(none.status == 401)
                #expect(none.header("WWW-Authenticate") == "Bearer")
                let token = provider.token(kid: "k1")
                let miss = try await request(port, "/v1/products?page=1", token: token)
                let hit = try await request(port, "/v1/products?page=1", token: token)
                #expect(miss.status == 200)
                #expect(hit.status == 200)
                #expect(miss.header("Cache-Control")?.hasPrefix("private, max-age=") == true)
                #expect(hit.header("Cache-Control")?.hasPrefix("private, max-age=") == true)
                #expect(hit.header("Cache-Status")?.contains("hit") == true)
                // A stored answer is not served to a request without a token.
                #expect(try await request(port, "/v1/products?page=1").status == 401)
                #expect(try await request(port, "/healthz").status == 200)
                let list = try miss.json()
                let items = list["items"] as? [[String: Any]] ?? []
                let image = try #require((items.first?["thumbnails"] as? [String])?.first)
                #expect(try await request(port, image).status == 200)
            }
        }

        /// `--auth-write-scope`: a write with a token lacking it is 403 `insufficient_scope`.
        @Test func writeScope() async throws {
            try await with(writeScope: "products:write") { provider, harness in
                let port = harness.port
                #expect(try await keysLoaded(provider, port))
                let refused = try await request(port, "/v1/products/1", method: "DELETE", token: provider.token(kid: "k1", extra: #""scope":"openid""#))
                #expect(refused.status == 403)
                #expect(refused.header("WWW-Authenticate") == #"Bearer error="insufficient_scope", scope="products:write""#)
                // With the scope it reaches the write path, which wants the delete's JSON body.
                let allowed = try await request(port, "/v1/products/1", method: "DELETE", token: provider.token(kid: "k1", extra: #""scope":"openid products:write""#))
                #expect(allowed.status == 415)
            }
        }
    
        /// `--rate-limit-key subject`: two users behind one address each have their budget;
        /// one user's second read is refused; a request without a token spends the address's.
        @Test func limitsPerUser() async throws {
            try await with(limits: { limits in
                limits.reads = RateRule(parsing: "2/m")
                limits.keyBySubject = true
            }) { provider, harness in
                let port = harness.port
                #expect(try await keysLoaded(provider, port))
                let alice = provider.token(kid: "k1", subject: "alice")
                let bob = provider.token(kid: "k1", subject: "bob")
                let statuses = [
                    try await request(port, "/v1/products/1", token: alice).status, try await request(port, "/v1/products/2", token: alice).status,
                    try await request(port, "/v1/products/3", token: alice).status, try await request(port, "/v1/products/1", token: bob).status,
                    try await request(port, "/v1/products/2", token: bob).status, try await request(port, "/v1/products/1").status,
                    try await request(port, "/v1/products/2").status, try await request(port, "/v1/products/3").status,
                ]
                #expect(statuses == [200, 200, 429, 200, 200, 200, 200, 429])
            }
        }
    
        /// The provider over https: discovery and the key set through the identity
        /// provider's own client, trusting `--auth-ca-file`; without it (the system's CAs) the
        /// certificate is refused and the keys stay missing.
        @Test func httpsProviderWithItsCAFile() async throws {
            try await with(tls: true) { (provider: TestIdentityProvider, harness: ReadPathHarness) async throws in
                let port = harness.port
                #expect(try await keysLoaded(provider, port))
                #expect(try await readiness(port) == "fresh")
                #expect(try await request(port, "/v1/products/1", token: provider.token(kid: "k1")).status == 200)
            }
            try await with(tls: true, trusted: false) { (provider: TestIdentityProvider, harness: ReadPathHarness) async throws in
                let port = harness.port
                try await Task.sleep(for: .milliseconds(500))
                #expect(provider.keySetFetches == 0)
                #expect(try await readiness(port) == "missing")
                #expect(try await request(port, "/v1/products/1", method: "DELETE", token: provider.token(kid: "k1")).status == 503)
            }
        }
    }
}
