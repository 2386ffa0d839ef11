import Crypto
import Foundation
@testable import Gateway
import GatewayModels
@testable import GatewayRuntime
@testable import HTTPInterface
import Logging
@testable import Routing
import GatewaySupport

/// An identity provider for the sign-in tests: a real server on 127.0.0.1 serving an OpenID
/// Connect discovery document and a key set of P-256 keys made here (rotatable; answering 503
/// while ``down``), counting the key set's fetches; and tokens signed with its keys.
final class TestIdentityProvider: Sendable {
    /// What the routes read and the tests change.
    final class State: Sendable {
        let port = Locked(0)
        /// Signing keys' raw bytes by `kid`, published or not.
        let keys = Locked<[String: [UInt8]]>([:])
        /// The `kid`s the key set lists, in order.
        let published = Locked<[String]>([])
        let down = Locked(false)
        let keySetFetches = Locked(0)
        /// Extra members of the key set (a malformed key, say).
        let extraMembers = Locked<[String]>([])
    }

    let state = State()
    let server: GatewayServer
    let audience = "open-market-api"
    /// With `tls`: the certificate it presents (for `localhost` and 127.0.0.1).
    let certificate: TestCertificate?
    var issuer: String { certificate == nil ? "http://127.0.0.1:\(server.port)" : "https://localhost:\(server.port)" }

    /// - Parameter tls: serve https with a certificate made for the test (trusted through
    ///   `--auth-ca-file` by ``configure(_:required:spacing:)``).
    init(tls: Bool = false) throws {
        certificate = tls ? try TestCertificate(subjectAltNames: ["DNS:localhost", "IP:127.0.0.1"]) : nil
        let scheme = tls ? "https://localhost" : "http://127.0.0.1"
        let state = self.state
        var router = Router()
        router.add(.get, "/.well-known/openid-configuration", .immediate { _, _ in
            let base = "\(scheme):\(state.port.withLock { $0 })"
            return GatewayResponse.json(Array(#"{"issuer":"\#(base)","jwks_uri":"\#(base)/jwks"}"#.utf8))
        })
        router.add(.get, "/jwks", .immediate { _, _ in
            state.keySetFetches.withLock { $0 += 1 }
            if state.down.withLock({ $0 }) { return GatewayResponse(status: 503, body: Array("down".utf8)) }
            var response = GatewayResponse.json(Array(Self.keySet(state).utf8))
            response.headers.set("Cache-Control", "public, max-age=3600")
            return response
        })
        var configuration = GatewayConfiguration.loopback()
        configuration.tls = certificate.map { TLSConfiguration(certificateFile: $0.certificateFile, privateKeyFile: $0.keyFile) }
        server = GatewayServer(configuration: configuration, router: router, logger: .quiet("test-idp"))
        try server.start()
        state.port.withLock { $0 = server.port }
    }

    func shutdown() { server.shutdown() }

    /// Makes a key `kid`, published in the set unless `publish` is false.
    func addKey(_ kid: String, publish: Bool = true) {
        state.keys.withLock { $0[kid] = Array(P256.Signing.PrivateKey().rawRepresentation) }
        if publish { state.published.withLock { $0.append(kid) } }
    }

    func publish(_ kids: [String]) { state.published.withLock { $0 = kids } }
    func setDown(_ down: Bool) { state.down.withLock { $0 = down } }
    var keySetFetches: Int { state.keySetFetches.withLock { $0 } }

    private static func keySet(_ state: State) -> String {
        let keys = state.keys.withLock { $0 }
        var members = state.published.withLock { $0 }.compactMap { kid -> String? in
            guard let raw = keys[kid], let key = try? P256.Signing.PrivateKey(rawRepresentation: raw) else { return nil }
            let point = Array(key.publicKey.x963Representation.dropFirst())
            return #"{"kty":"EC","kid":"\#(kid)","use":"sig","alg":"ES256","crv":"P-256","x":"\#(Base64URL.encode(point[..<32]))","y":"\#(Base64URL.encode(point[32...]))"}"#
        }
        members += state.extraMembers.withLock { $0 }
        return #"{"keys":[\#(members.joined(separator: ","))]}"#
    }

    /// A token signed by `kid` with the standard claims (issuer, `sub`, audience, expiring in
    /// 10 minutes) and `extra` claims (raw JSON members) or replacements.
    func token(kid: String, subject: String = "seller-7", expiresIn: Int = 600, audience: String? = nil, extra: String = "") -> String {
        let now = Int(Date().timeIntervalSince1970)
        let header = #"{"alg":"ES256","typ":"at+jwt","kid":"\#(kid)"}"#
        let claims = #"{"iss":"\#(issuer)","sub":"\#(subject)","aud":"\#(audience ?? self.audience)","exp":\#(now + expiresIn),"iat":\#(now - 5)\#(extra.isEmpty ? "" : "," + extra)}"#
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let key = state.keys.withLock { $0[kid] }.flatMap { try? P256.Signing.PrivateKey(rawRepresentation: $0) } ?? P256.Signing.PrivateKey()
        return input + "." + Base64URL.encode(Array(try! key.signature(for: Array(input.utf8)).rawRepresentation))
    }

    /// The gateway's settings for this provider (discovery), with short refetch spacing so
    /// tests need not wait 30 s.
    func configure(_ configuration: inout GatewayConfiguration, required: AuthConfiguration.Required = .writes, spacing: Duration = .seconds(30)) {
        var auth = AuthConfiguration(issuer: issuer, audiences: [audience])
        auth.algorithms = [.es256]
        auth.required = required
        auth.refetchSpacing = spacing
        auth.retryAfterFailure = .milliseconds(300)
        auth.caFile = certificate?.certificateFile
        configuration.auth = auth
    }
}
