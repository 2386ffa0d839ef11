import DemoOrigin
import Foundation
@testable import Gateway
import GatewayModels
import Logging
import Observability
import TestSupport
import Testing

extension IntegrationTests {
    /// `--vendor-credentials-file`: v2/v2b writes of signed-in callers made with the vendor
    /// credentials the gateway holds, on a real gateway in front of the demo origin (which
    /// refuses a wrong identifier or secret) with a test identity provider.
    @Suite struct VendorCredentials {
        static let first = DemoVendor.demo[0]
        static let second = DemoVendor.demo[1]
        static let json = ["Content-Type: application/json"]

        /// A credentials file (mode 0600) naming `demo-market` (the demo's first vendor) and,
        /// unless `onlyFirst`, `second-shop`; `firstSecret` replaces the first's secret.
        static func credentialsFile(firstSecret: String = first.secret, onlyFirst: Bool = false) throws -> String {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("vendors-\(UUID().uuidString).json").path
            try write(credentialsJSON(firstSecret: firstSecret, onlyFirst: onlyFirst), to: path)
            return path
        }

        static func credentialsJSON(firstSecret: String = first.secret, onlyFirst: Bool = false) -> String {
            var members = [#""demo-market":{"identifier":"\#(first.identifier)","secret":"\#(firstSecret)"}"#]
            if !onlyFirst { members.append(#""second-shop":{"identifier":"\#(second.identifier)","secret":"\#(second.secret)"}"#) }
            return "{" + members.joined(separator: ",") + "}"
        }

        static func write(_ text: String, to path: String, mode: Int = 0o600) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        }

        /// A gateway on `generation` with sign-in and `file`; logs at trace level into a pipe
        /// whose text `body` gets from its `logs` closure.
        private func with(
            _ generation: OriginGeneration, file: String, spacing: Duration = .seconds(30),
            _ body: (TestIdentityProvider, ReadPathHarness, @escaping () throws -> String) async throws -> Void
        ) async throws {
            let provider = try TestIdentityProvider()
            defer { provider.shutdown() }
            provider.addKey("k1")
            let pipe = Pipe()
            let writer = LogWriter(output: pipe.fileHandleForWriting, interval: .seconds(3600))
            var handler = BatchedLogHandler(label: "gateway", writer: writer)
            handler.logLevel = .trace
            let logger = Logger(label: "gateway") { _ in handler }
            let logs: () throws -> String = {
                writer.flush()
                try pipe.fileHandleForWriting.close()
                return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            }
            try await ReadPathHarness.with(generation: generation, configure: { configuration in
                provider.configure(&configuration, spacing: spacing)
                configuration.auth?.vendorCredentialsFile = file
                // Without the file the gateway would write as this one: it must not.
                configuration.origin.vendorIdentifier = Self.second.identifier
            }, logger: logger) { harness in
                #expect(try await poll(for: .seconds(5)) { provider.keySetFetches == 1 })
                // The provider counts its answer before the gateway has read and taken the set,
                // and a token sent before that gets 503 (seen once in a full TSan run): wait for
                // the gateway's keys to be fresh (not through /readyz, which would probe the
                // origin these tests count).
                #expect(try await poll(every: .milliseconds(10), for: .seconds(5)) { harness.authKeys?.status == .fresh })
                try await body(provider, harness, logs)
            }
        }

        private func send(
            _ port: Int, _ method: String, _ target: String, token: String?, headers: [String] = json, body: String = ""
        ) async throws -> RawHTTPClient.Response {
            try await offPool {
                let client = try RawHTTPClient(port: port)
                defer { client.close() }
                return try client.request(method, target, headers: headers + (token.map { ["Authorization: Bearer \($0)"] } ?? []), body: Array(body.utf8))
            }
        }

        static func createBody(password: String? = nil, title: String = "서버 자격 증명") -> String {
            let image = Data(IntegrationTests.WritePath.png).base64EncodedString()
            return #"{"title":"\#(title)","description":"토큰으로 쓰기","price":1000,"currency":"KRW","stock":3,"discountedPrice":900,"#
                + (password.map { #""password":"\#($0)","# } ?? "") + #""images":[{"data":"\#(image)"}]}"#
        }

        @Test(arguments: [OriginGeneration.v2, .v2b])
        func writesAsTheTokensVendorWithoutItsSecret(_ generation: OriginGeneration) async throws {
            let file = try Self.credentialsFile()
            defer { try? FileManager.default.removeItem(atPath: file) }
            try await with(generation, file: file) { provider, harness, logs in
                let port = harness.port
                let token = provider.token(kid: "k1", subject: "seller-7", extra: #""vendor":"demo-market""#)
                let created = try await send(port, "POST", "/v1/products", token: token, body: Self.createBody())
                #expect(created.status == 201)
                let id = try #require(try created.json()["id"] as? Int)
                #expect(Generations.vendor(try created.json()["vendor"]) == "1:Demo Market")
                #expect(harness.origin.item(id: Int64(id))?.vendorID == 1)

                // Only the sale price: the origin's current prices are read, then the patch sent.
                let patched = try await send(port, "PATCH", "/v1/products/\(id)", token: token, body: #"{"discountedPrice":700}"#)
                #expect(patched.status == 200)
                #expect(try patched.json()["discountedPrice"] as? Int == 700)
                // The vendor's own secret and identifier, sent, are accepted.
                let restocked = try await send(
                    port, "PATCH", "/v1/products/\(id)", token: token, headers: Self.json + ["Vendor-Identifier: \(Self.first.identifier)"],
                    body: #"{"stock":9,"password":"\#(Self.first.secret)"}"#)
                #expect(restocked.status == 200)
                #expect(harness.origin.item(id: Int64(id))?.stock == 9)

                // A delete needs no body at all.
                let deleted = try await send(port, "DELETE", "/v1/products/\(id)", token: token, headers: [])
                #expect(deleted.status == 200)
                #expect(try deleted.json()["id"] as? Int == id)
                #expect(harness.origin.item(id: Int64(id)) == nil)
                // No Authorization header ever reached the origin.
                #expect(harness.origin.counts.authorized == 0)
                #expect(harness.origin.counts.total >= 6)

                let text = try logs()
                #expect(text.contains("POST /v1/products 201"))
                #expect(text.contains("user=seller-7"))
                for secret in [token, Self.first.secret, Self.first.identifier, Self.second.secret, Self.second.identifier] {
                    #expect(!text.contains(secret))
                }
            }
        }

        /// A write whose token names a key published after the set loaded waits for the set
        /// to be fetched again, then goes out as the token's vendor; its access line names
        /// the user like any other.
        @Test func aWriteWaitingForARotatedKeyNamesItsUser() async throws {
            let file = try Self.credentialsFile()
            defer { try? FileManager.default.removeItem(atPath: file) }
            try await with(.v2, file: file, spacing: .milliseconds(50)) { provider, harness, logs in
                provider.addKey("k2", publish: false)
                provider.publish(["k1", "k2"])
                try await Task.sleep(for: .milliseconds(100))
                let token = provider.token(kid: "k2", subject: "rotated-user", extra: #""vendor":"demo-market""#)
                let deleted = try await send(harness.port, "DELETE", "/v1/products/2", token: token, headers: [])
                #expect(deleted.status == 200)
                #expect(provider.keySetFetches == 2)
                #expect(try logs().contains("user=rotated-user [Gateway] DELETE /v1/products/2 200"))
            }
        }

        @Test func refusesAnotherVendorNoClaimAndAWrongSecret() async throws {
            let file = try Self.credentialsFile()
            defer { try? FileManager.default.removeItem(atPath: file) }
            try await with(.v2, file: file) { provider, harness, _ in
                let port = harness.port
                let token = provider.token(kid: "k1", extra: #""vendor":"demo-market""#)
                func detail(_ response: RawHTTPClient.Response) throws -> String? { try response.json()["detail"] as? String }

                let otherVendor = try await send(
                    port, "POST", "/v1/products", token: token, headers: Self.json + ["Vendor-Identifier: \(Self.second.identifier)"],
                    body: Self.createBody())
                #expect(otherVendor.status == 403)
                #expect(try detail(otherVendor) == "Vendor-Identifier is not the signed-in vendor's: leave it out, or send the token's vendor's.")
                #expect(try otherVendor.json()["type"] as? String == "urn:open-market-gateway:problem:vendor-forbidden")

                let noClaim = try await send(port, "POST", "/v1/products", token: provider.token(kid: "k1"), body: Self.createBody())
                #expect(noClaim.status == 403)
                #expect(try detail(noClaim) == "The token carries no vendor claim (a string naming the vendor), so no vendor can write for it.")
                let numberClaim = try await send(port, "DELETE", "/v1/products/1", token: provider.token(kid: "k1", extra: #""vendor":1"#), headers: [])
                #expect(numberClaim.status == 403)
                let unknown = try await send(port, "DELETE", "/v1/products/1", token: provider.token(kid: "k1", extra: #""vendor":"nobody""#), headers: [])
                #expect(unknown.status == 403)
                #expect(try detail(unknown) == "The token's vendor is not one this gateway writes for.")

                let wrongSecret = try await send(port, "POST", "/v1/products", token: token, body: Self.createBody(password: Self.second.secret))
                #expect(wrongSecret.status == 403)
                #expect(try detail(wrongSecret) == "password is not the signed-in vendor's secret: leave it out (the gateway holds it).")
                #expect(!wrongSecret.text.contains(Self.second.secret) && !wrongSecret.text.contains(Self.first.secret))
                // Field errors still come all at once, with nothing sent.
                let invalid = try await send(port, "POST", "/v1/products", token: token, body: #"{"title":""}"#)
                #expect(invalid.status == 400)
                #expect(harness.origin.counts.total == 0)
            }
        }

        @Test func originRefusingTheHeldCredentialsIs502AndLogged() async throws {
            let file = try Self.credentialsFile(firstSecret: "not-the-secret")
            defer { try? FileManager.default.removeItem(atPath: file) }
            try await with(.v2b, file: file) { provider, harness, logs in
                let token = provider.token(kid: "k1", extra: #""vendor":"demo-market""#)
                let refused = try await send(harness.port, "POST", "/v1/products", token: token, body: Self.createBody())
                #expect(refused.status == 502)
                #expect(try refused.json()["detail"] as? String == "The origin refused the credentials the gateway holds for this vendor; nothing was changed.")
                #expect(harness.origin.counts.route("POST", "/api/products") == 1)
                // Another vendor's product (the origin's 403) is the caller's doing: 403.
                let others = try await send(harness.port, "DELETE", "/v1/products/1", token: provider.token(kid: "k1", extra: #""vendor":"second-shop""#), headers: [])
                #expect(others.status == 403)
                #expect(try others.json()["detail"] as? String == "product belongs to another vendor")
                let text = try logs()
                #expect(text.contains("the origin refused the vendor credentials the gateway holds"))
                #expect(text.contains("vendor=demo-market"))
                #expect(!text.contains("not-the-secret") && !text.contains(Self.first.identifier))
            }
        }

        @Test func idempotencyKeysOfTwoUsersOfOneVendorStayApart() async throws {
            let file = try Self.credentialsFile()
            defer { try? FileManager.default.removeItem(atPath: file) }
            try await with(.v2, file: file) { provider, harness, _ in
                let port = harness.port
                let alice = provider.token(kid: "k1", subject: "alice", extra: #""vendor":"demo-market""#)
                let bob = provider.token(kid: "k1", subject: "bob", extra: #""vendor":"demo-market""#)
                let headers = Self.json + ["Idempotency-Key: same-key-1"]
                let first = try await send(port, "POST", "/v1/products", token: alice, headers: headers, body: Self.createBody())
                let again = try await send(port, "POST", "/v1/products", token: alice, headers: headers, body: Self.createBody())
                let other = try await send(port, "POST", "/v1/products", token: bob, headers: headers, body: Self.createBody())
                #expect([first.status, again.status, other.status] == [Int](repeating: 201, count: 3))
                #expect(again.header("Idempotent-Replayed") == "true" && other.header("Idempotent-Replayed") == nil)
                let ids = try [first, again, other].map { try #require($0.json()["id"] as? Int) }
                #expect(ids[0] == ids[1] && ids[2] != ids[0])
                #expect(harness.origin.counts.route("POST", "/api/products") == 2)
            }
        }

        @Test func theFileIsReloadedAndABrokenOneKeepsTheOld() async throws {
            let file = try Self.credentialsFile(onlyFirst: true)
            defer { try? FileManager.default.removeItem(atPath: file) }
            try await with(.v2, file: file) { provider, harness, logs in
                let port = harness.port
                let second = provider.token(kid: "k1", extra: #""vendor":"second-shop""#)
                #expect(try await send(port, "POST", "/v1/products", token: second, body: Self.createBody()).status == 403)

                try Self.write(Self.credentialsJSON(), to: file)
                harness.server.reloadFiles(.interval)
                let created = try await send(port, "POST", "/v1/products", token: second, body: Self.createBody())
                #expect(created.status == 201)
                #expect(harness.origin.item(id: Int64(try #require(try created.json()["id"] as? Int)))?.vendorID == 2)
                // Unchanged: an interval check reads nothing.
                harness.server.reloadFiles(.interval)

                // Broken, then writable by others: both refused, the table in use kept.
                try Self.write(#"{"second-shop":{"identifier":"x","secret":"y","extra":1}}"#, to: file)
                harness.server.reloadFiles(.signal)
                try Self.write(Self.credentialsJSON(onlyFirst: true), to: file, mode: 0o666)
                harness.server.reloadFiles(.signal)
                #expect(try await send(port, "POST", "/v1/products", token: second, body: Self.createBody()).status == 201)
                let text = try logs()
                #expect(text.components(separatedBy: "reloaded the vendor credentials").count - 1 == 1)
                #expect(text.contains("unknown member extra"))
                #expect(text.contains("its group or other users may write it (mode 666)"))
                #expect(text.components(separatedBy: "cannot reload the vendor credentials").count - 1 == 2)
                #expect(String(decoding: harness.metrics.render(), as: UTF8.self).contains(#"gateway_reloads_total{files="vendor-credentials",outcome="failed"} 2"#))
            }
        }
    }
}
