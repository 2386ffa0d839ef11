import Crypto
import Foundation
import GatewayModels
import HTTPCodec
import HTTPInterface
import Logging
import Routing
import Transport
import GatewaySupport

/// A small OpenID Connect identity provider for trying sign-in with nothing else installed
/// (`gateway --demo-auth`): on 127.0.0.1, with a P-256 key made at start (never stored), it
/// serves a discovery document, its key set, and `POST /token`, which hands anyone a signed
/// access token for a demo vendor. A demo: it checks no password. The gateway does not link
/// it; only the `gateway` executable does, for `--demo-auth`.
///
/// `start` and `shutdown` may be called from any thread except its loop's own.
public final class DemoIdentityProvider: Sendable {
    /// The audience its tokens name; the gateway is started with it as `--auth-audience`.
    public static let audience = "open-market-gateway"
    /// The key's `kid`.
    static let keyID = "demo-key-1"
    /// How long a token lasts.
    static let lifetime = 3600

    /// Vendor claim values, in order, with the name each is shown under.
    public let vendors: [(claim: String, name: String)]
    /// The signing key's raw bytes (the key type is not `Sendable`).
    private let keyBytes = Array(P256.Signing.PrivateKey().rawRepresentation)
    private let running = Locked<HTTPServer?>(nil)
    private let boundPort = Locked(0)
    private let logger: Logger

    public init(vendors: [(claim: String, name: String)], logger: Logger = Logger(label: "demo-identity-provider")) {
        self.vendors = vendors
        self.logger = logger
    }

    /// `http://127.0.0.1:<port>`: its tokens' `iss`, and the gateway's `--auth-issuer`.
    public var issuer: String { "http://127.0.0.1:\(boundPort.withLock { $0 })" }

    /// Binds a free port on 127.0.0.1 and serves. Returns the issuer.
    /// - Throws: `TransportError` when it cannot listen.
    @discardableResult
    public func start() throws(TransportError) -> String {
        var configuration = HTTPServerConfiguration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.threads = 1
        configuration.requestLimits = RequestLimits(maxBodyBytes: 4096)
        configuration.shutdownGrace = .seconds(1)
        let server = HTTPServer(configuration: configuration, application: RouterApplication(router: router(), logger: logger), logger: logger)
        try server.start()
        boundPort.withLock { $0 = server.port }
        running.withLock { $0 = server }
        logger.info("demo identity provider listening", metadata: ["issuer": .string(issuer)])
        return issuer
    }

    public func shutdown() {
        running.withLock { server in
            server?.shutdown()
            server = nil
        }
    }

    private func router() -> Router {
        var router = Router()
        router.add(.get, "/.well-known/openid-configuration", .immediate { [self] _, _ in
            var writer = JSONWriter(capacity: 256)
            writer.beginObject()
            writer.key("issuer"); writer.string(issuer)
            writer.key("jwks_uri"); writer.string(issuer + "/jwks")
            writer.key("token_endpoint"); writer.string(issuer + "/token")
            writer.key("id_token_signing_alg_values_supported"); writer.beginArray(); writer.string("ES256"); writer.endArray()
            writer.endObject()
            return .json(writer.bytes)
        })
        router.add(.get, "/jwks", .immediate { [self] _, _ in
            var response = GatewayResponse.json(Array(keySet().utf8))
            response.headers.set("Cache-Control", "public, max-age=3600")
            return response
        })
        router.add(.post, "/token", .immediate { [self] request, _ in
            tokenAnswer(form: Self.form(request.body) .merging(Self.form(Array((request.query ?? "").utf8))) { body, _ in body })
        })
        return router
    }

    /// The vendor claim value for a vendor's display name: `Demo Market` → `demo-market`.
    public static func claim(forVendorNamed name: String) -> String {
        let words = name.lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        return words.joined(separator: "-")
    }

    /// What `gateway --demo-auth` prints once it listens: where the provider is, a `curl` for
    /// a token of each vendor, and a write with one to `gateway`.
    public func howTo(gateway: String, generation: String) -> String {
        var lines = [
            "",
            "Demo sign-in (--demo-auth): identity provider \(issuer), audience \(Self.audience).",
            "A token for each demo vendor (valid \(Self.lifetime / 60) minutes; add -d user=NAME for another user):",
        ]
        let width = vendors.map(\.name.count).max() ?? 0
        for vendor in vendors {
            lines.append("  \(vendor.name + ":" + String(repeating: " ", count: width - vendor.name.count)) curl -s -d vendor=\(vendor.claim) \(issuer)/token")
        }
        lines.append("Then, for example:")
        lines.append("  TOKEN=$(curl -s -d vendor=\(vendors.first?.claim ?? "") \(issuer)/token | sed 's/.*\"access_token\":\"\\([^\"]*\\)\".*/\\1/')")
        if generation == "v1" {
            lines.append("  This demo origin is v1, whose writes still need each product's own password;")
            lines.append("  start with --origin-generation v2 (or v2b) to write with the token alone.")
        } else {
            lines.append("  curl -X DELETE -H \"Authorization: Bearer $TOKEN\" \(gateway)/v1/products/1")
        }
        return lines.joined(separator: "\n") + "\n\n"
    }

    /// The public key as a JWK set.
    func keySet() -> String {
        let point = Array(signingKey.publicKey.x963Representation.dropFirst())
        let x = Base64URL.encode(point[..<32])
        let y = Base64URL.encode(point[32...])
        return #"{"keys":[{"kty":"EC","crv":"P-256","kid":"\#(Self.keyID)","use":"sig","alg":"ES256","x":"\#(x)","y":"\#(y)"}]}"#
    }

    /// `POST /token` with `vendor` (a claim value of ``vendors``) and optionally `user` (the
    /// token's `sub`, 1 to 64 of `A-Z a-z 0-9 . _ @ -`; default `seller@<vendor>`), as form
    /// fields or in the query: an OAuth-style `{"access_token", "token_type": "Bearer",
    /// "expires_in"}`, or 400 `{"error": "invalid_request", "error_description"}`.
    func tokenAnswer(form: [String: String]) -> GatewayResponse {
        let known = vendors.map(\.claim)
        guard let vendor = form["vendor"], known.contains(vendor) else {
            return Self.invalid("vendor must be one of: \(known.joined(separator: ", ")).")
        }
        let user = form["user"] ?? "seller@\(vendor)"
        guard (1...64).contains(user.utf8.count), user.utf8.allSatisfy({ Self.userBytes.contains($0) }) else {
            return Self.invalid("user must be 1 to 64 of A-Z a-z 0-9 . _ @ -.")
        }
        let token = token(vendor: vendor, user: user, now: Int64(Date().timeIntervalSince1970))
        var writer = JSONWriter(capacity: 1024)
        writer.beginObject()
        writer.key("access_token"); writer.string(token)
        writer.key("token_type"); writer.string("Bearer")
        writer.key("expires_in"); writer.integer(Int64(Self.lifetime))
        writer.endObject()
        var response = GatewayResponse.json(writer.bytes)
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    /// An ES256 access token (RFC 9068 `at+jwt`) for `user` of `vendor`, with the scope
    /// `products:write`.
    func token(vendor: String, user: String, now: Int64) -> String {
        let header = #"{"alg":"ES256","typ":"at+jwt","kid":"\#(Self.keyID)"}"#
        var claims = JSONWriter(capacity: 256)
        claims.beginObject()
        claims.key("iss"); claims.string(issuer)
        claims.key("sub"); claims.string(user)
        claims.key("aud"); claims.string(Self.audience)
        claims.key("iat"); claims.integer(now)
        claims.key("exp"); claims.integer(now + Int64(Self.lifetime))
        claims.key("scope"); claims.string("products:write")
        claims.key("vendor"); claims.string(vendor)
        claims.endObject()
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(claims.bytes)
        guard let signature = try? signingKey.signature(for: Array(input.utf8)) else { preconditionFailure("a P-256 key signs") }
        return input + "." + Base64URL.encode(Array(signature.rawRepresentation))
    }

    private var signingKey: P256.Signing.PrivateKey {
        guard let key = try? P256.Signing.PrivateKey(rawRepresentation: keyBytes) else { preconditionFailure("its own key's bytes") }
        return key
    }

    private static let userBytes = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._@-".utf8))

    private static func invalid(_ description: String) -> GatewayResponse {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        writer.key("error"); writer.string("invalid_request")
        writer.key("error_description"); writer.string(description)
        writer.endObject()
        return .json(writer.bytes, status: 400)
    }

    /// `a=1&b=two+words` (application/x-www-form-urlencoded) as a dictionary; the first of a
    /// repeated name wins; undecodable pairs are left out.
    static func form(_ bytes: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in String(decoding: bytes, as: UTF8.self).split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), let value = decode(parts.count > 1 ? parts[1] : ""), fields[name] == nil else { continue }
            fields[name] = value
        }
        return fields
    }

    private static func decode(_ text: Substring) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
