import Foundation
@testable import Gateway
import GatewayModels
@testable import HTTPInterface
import Testing
import GatewaySupport

/// `--vendor-credentials-file`: what is read, what is refused, and the write credentials a
/// request gets. Pure apart from the store's temporary files.
@Suite struct VendorCredentialsFileTests {
    private func parse(_ text: String) throws(VendorCredentialsFile.Problem) -> [String: VendorCredential] {
        try VendorCredentialsFile.parse(Array(text.utf8))
    }

    private func problem(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error.description
        }
    }

    @Test func readsVendorsAndRefusesEverythingElseWhole() throws {
        #expect(try parse(#"{"acme":{"identifier":"id-1","secret":"s1"},"b":{"secret":"s2","identifier":"id-2"}}"#) == [
            "acme": VendorCredential(identifier: "id-1", secret: "s1"), "b": VendorCredential(identifier: "id-2", secret: "s2"),
        ])
        #expect(problem("{}") == "the file names no vendor")
        #expect(problem("[]") == "the file must be a JSON object from vendor to credentials")
        #expect(problem(#"{"a":{"identifier":"i","secret":"s"},"a":{"identifier":"j","secret":"t"}}"#)?.hasPrefix("not JSON as the gateway reads it") == true)
        #expect(problem(#"{"a":{"identifier":"i","secret":"s","secrte":"t"}}"#) == "vendor a: unknown member secrte (only identifier and secret)")
        #expect(problem(#"{"a":{"identifier":"i d","secret":"s"}}"#) == "vendor a: identifier must be a string of 1 to 200 visible ASCII characters")
        #expect(problem(#"{"a":{"identifier":"i"}}"#) == "vendor a: secret must be a string of 1 to 100 characters")
        #expect(problem(#"{"a":{"identifier":"i","secret":""}}"#) == "vendor a: secret must be a string of 1 to 100 characters")
        #expect(problem(#"{"a":"i:s"}"#) == "vendor a: must be an object with identifier and secret")
        #expect(problem(#"{"":{"identifier":"i","secret":"s"}}"#) == "a vendor name must be 1 to 255 characters")
        // A problem names neither an identifier nor a secret.
        #expect(problem(#"{"a":{"identifier":"top-secret-id","secret":17}}"#)?.contains("top-secret-id") == false)
    }

    @Test func permissions() {
        #expect(VendorCredentialsFile.judge(mode: 0o600) == .fine)
        #expect(VendorCredentialsFile.judge(mode: 0o640) == .fine)
        #expect(VendorCredentialsFile.judge(mode: 0o644) == .readableByOthers)
        #expect(VendorCredentialsFile.judge(mode: 0o444) == .readableByOthers)
        #expect(VendorCredentialsFile.judge(mode: 0o660) == .writableByOthers)
        #expect(VendorCredentialsFile.judge(mode: 0o602) == .writableByOthers)
    }

    @Test func constantTimeEquality() {
        #expect(ConstantTime.equals("demo-secret-1", "demo-secret-1"))
        #expect(!ConstantTime.equals("demo-secret-1", "demo-secret-2"))
        #expect(!ConstantTime.equals("demo-secret", "demo-secret-1"))
        #expect(!ConstantTime.equals("", "a"))
        #expect(ConstantTime.equals("", ""))
    }

    @Test func theStoreLoadsWarnsRefusesAndKeepsTheOld() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vendor-store-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        func write(_ text: String, mode: Int) throws {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        }
        try write(#"{"a":{"identifier":"id-a","secret":"sa"}}"#, mode: 0o644)
        let (store, warning) = try VendorCredentialStore.load(path: path)
        #expect(warning == "--vendor-credentials-file \(path) is readable by other users (mode 644)")
        #expect(store.credential(for: "a") == VendorCredential(identifier: "id-a", secret: "sa"))
        #expect(store.credential(for: "b") == nil)
        #expect(store.redactions == ["id-a", "sa"])
        #expect(!store.changed)
        guard case .unchanged = try store.reload(force: false) else { Issue.record("read an unchanged file"); return }

        try write(#"{"b":{"identifier":"id-b","secret":"sb"}}"#, mode: 0o600)
        #expect(store.changed)
        guard case .loaded(vendors: 1, warning: nil) = try store.reload(force: false) else { Issue.record("did not load"); return }
        #expect(store.credential(for: "a") == nil && store.credential(for: "b")?.secret == "sb")

        try write(#"{"c":{"identifier":"id-c","secret":"sc"}}"#, mode: 0o664)
        #expect(throws: VendorCredentialStore.Problem.self) { try store.reload(force: false) }
        #expect(store.credential(for: "b")?.secret == "sb" && store.credential(for: "c") == nil)
        #expect(!store.changed)
        #expect(throws: VendorCredentialStore.Problem.self) { _ = try VendorCredentialStore.load(path: path) }
        #expect(throws: VendorCredentialStore.Problem.self) { _ = try VendorCredentialStore.load(path: path + ".missing") }
    }

    private func request(identity claims: [String: JSONValue]?, vendorHeader: String? = nil) -> GatewayRequest {
        var request = GatewayRequest(method: .post, path: "/v1/products")
        if let vendorHeader { request.headers.set("Vendor-Identifier", vendorHeader) }
        request.identity = claims.map { RequestIdentity(issuer: "https://idp", subject: "u1", scopes: [], claims: $0) }
        return request
    }

    @Test func writeCredentialsOfARequest() throws {
        let server = ServerVendorCredentials(
            store: VendorCredentialStore(credentials: ["acme": VendorCredential(identifier: "id-acme", secret: "s-acme")]), claim: "org")
        func resolve(_ request: GatewayRequest, _ generation: OriginGeneration = .v2, server: ServerVendorCredentials? = server, fallback: String? = "id-flag")
            -> String
        {
            do {
                switch try WriteCredentials.resolve(request, generation: generation, server: server, fallbackIdentifier: fallback) {
                case .client(let identifier): return "client \(identifier ?? "-")"
                case .server(let vendor, let credential): return "server \(vendor) \(credential.identifier)"
                }
            } catch {
                switch error {
                case .invalid(let field): return "invalid \(field.field)"
                case .refused(let refusal): return "refused \(refusal.status) \(refusal.detail)"
                }
            }
        }
        #expect(resolve(request(identity: ["org": .string("acme")])) == "server acme id-acme")
        #expect(resolve(request(identity: ["org": .string("acme")], vendorHeader: "id-acme")) == "server acme id-acme")
        #expect(resolve(request(identity: ["org": .string("acme")], vendorHeader: "id-other")).hasPrefix("refused 403 Vendor-Identifier"))
        #expect(resolve(request(identity: ["org": .string("acme")], vendorHeader: "bad value")).hasPrefix("refused 403 Vendor-Identifier"))
        #expect(resolve(request(identity: ["vendor": .string("acme")])).hasPrefix("refused 403 The token carries no org claim"))
        #expect(resolve(request(identity: ["org": .array([.string("acme")])])).hasPrefix("refused 403 The token carries no org claim"))
        #expect(resolve(request(identity: ["org": .string("other")])) == "refused 403 The token's vendor is not one this gateway writes for.")
        #expect(resolve(request(identity: nil)).hasPrefix("refused 401"))
        // v1, or no credentials file: the client's, as without sign-in.
        #expect(resolve(request(identity: ["org": .string("acme")]), .v1) == "client -")
        #expect(resolve(request(identity: ["org": .string("acme")], vendorHeader: "bad value"), .v1) == "invalid Vendor-Identifier")
        #expect(resolve(request(identity: ["org": .string("acme")]), server: nil) == "client id-flag")
        #expect(resolve(request(identity: nil, vendorHeader: "id-header"), server: nil) == "client id-header")
        #expect(resolve(request(identity: nil), server: nil, fallback: nil) == "invalid Vendor-Identifier")

        let held = WriteCredentials.server(vendor: "acme", VendorCredential(identifier: "id-acme", secret: "s-acme"))
        #expect(held.secret(clientPassword: "") == "s-acme")
        #expect(WriteCredentials.client(identifier: nil).secret(clientPassword: "pw") == "pw")
        #expect(held.refusal(forPassword: "") == nil)
        #expect(held.refusal(forPassword: "s-acme") == nil)
        #expect(held.refusal(forPassword: "s-other")?.status == 403)
    }
}
