import Foundation
@testable import Gateway
@testable import HTTPInterface
import Testing
@testable import Transport

extension IntegrationTests {
    /// HTTPS origins: a local origin behind a certificate made for the test.
    @Suite struct OriginTLS {
        /// An https test origin presenting a new certificate for `names`, and a client that
        /// trusts that certificate (or, with `trustIt` false, only the system's CAs).
        private func with(
            certificateFor names: [String], trustIt: Bool = true, _ body: (TestOrigin, TestOriginClient) async throws -> Void
        ) async throws {
            let certificate = try TestCertificate(subjectAltNames: names)
            let origin = try TestOrigin(tls: TLSConfiguration(certificateFile: certificate.certificateFile, privateKeyFile: certificate.keyFile))
            let client = try TestOriginClient(tls: .client(caFile: trustIt ? certificate.certificateFile : nil))
            defer {
                client.shutdown()
                origin.shutdown()
            }
            try await body(origin, client)
        }

        /// The reason of a TLS connect failure, or nil (recording an issue) for anything else.
        private func tlsFailure(_ result: Result<OriginResponse, OriginFailure>) -> String? {
            guard case .failure(.connectFailed(let reason)) = result, reason.hasPrefix("TLS: ") else {
                Issue.record("expected a TLS connect failure, got \(result)")
                return nil
            }
            return reason
        }

        @Test func verifiedHTTPSWithKeepAliveByNameAndByAddress() async throws {
            try await with(certificateFor: ["DNS:localhost", "IP:127.0.0.1"]) { origin, client in
                for host in ["localhost", "127.0.0.1"] {
                    let endpoint = origin.secureEndpoint(host: host)
                    var peers = Set<String>()
                    for page in 1...3 {
                        let response = try await client.get("/items/\(page)", from: endpoint).get()
                        #expect(response.body == Array("{\"page\":\(page)}".utf8))
                        peers.insert(response.headers["X-Peer"] ?? "")
                    }
                    #expect(peers.count == 1, "one TLS connection for \(host)")
                    let gzipped = try await client.get("/gzipped", from: endpoint).get()
                    #expect(gzipped.body == TestRoutes.jsonBody(size: 10_000))
                }
            }
        }

        /// Image fetches connect to the address they checked: the name still goes into `Host`,
        /// SNI and the certificate check.
        @Test func aSeparateConnectAddressKeepsTheNameForHostAndCertificate() async throws {
            let certificate = try TestCertificate(subjectAltNames: ["DNS:localhost"])
            let origin = try TestOrigin(tls: TLSConfiguration(certificateFile: certificate.certificateFile, privateKeyFile: certificate.keyFile))
            let client = try TestOriginClient(tls: .client(caFile: certificate.certificateFile))
            defer {
                client.shutdown()
                origin.shutdown()
            }
            let byAddress = OriginEndpoint(scheme: .https, host: "localhost", port: origin.server.port, connectAddress: "127.0.0.1")
            let response = try await client.get("/items/1", from: byAddress).get()
            #expect(response.body == Array("{\"page\":1}".utf8))
            #expect(response.headers["X-Seen-Host"] == "localhost:\(origin.server.port)")
            #expect(response.headers["X-Peer"]?.hasPrefix("127.0.0.1") == true)
            // The same address under a name the certificate does not carry is refused.
            let otherName = OriginEndpoint(scheme: .https, host: "other.example", port: origin.server.port, connectAddress: "127.0.0.1")
            guard case .failure(.connectFailed(let reason)) = await client.get("/items/2", from: otherName) else {
                Issue.record("expected a TLS connect failure")
                return
            }
            #expect(reason.contains("certificate verify failed"))
            #expect(origin.hits("GET /items/2") == 0)
        }

        @Test func anUntrustedCertificateIsRefused() async throws {
            try await with(certificateFor: ["DNS:localhost"], trustIt: false) { origin, client in
                let reason = tlsFailure(await client.get("/items/1", from: origin.secureEndpoint(host: "localhost")))
                #expect(reason?.contains("certificate verify failed") == true)
                #expect(origin.hits("GET /items/1") == 0)
            }
        }

        @Test func aCertificateForAnotherNameIsRefused() async throws {
            try await with(certificateFor: ["DNS:other.example"]) { origin, client in
                for host in ["localhost", "127.0.0.1"] {
                    let reason = tlsFailure(await client.get("/items/1", from: origin.secureEndpoint(host: host)))
                    #expect(reason?.contains("certificate verify failed") == true, "\(host)")
                }
                #expect(origin.hits("GET /items/1") == 0)
            }
        }

        @Test func aMissingCAFileIsAClearError() {
            #expect(throws: TransportError.self) { try TLSContext.client(caFile: "/nonexistent/ca.pem") }
        }
    }
}
