import Foundation
import GatewayModels
import GatewaySupport

/// The identity provider's documents as the gateway reads them: the OpenID Connect discovery
/// document (only its `issuer` and `jwks_uri`), the URLs it may fetch, and how long a key set
/// stays fresh. Pure.
enum KeySetDocuments {
    /// Why a document or URL cannot be used.
    struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        let description: String
    }

    /// The discovery document's URL (OpenID Connect Discovery 1.0 §4: the issuer without a
    /// trailing `/`, then `/.well-known/openid-configuration`).
    static func discoveryURL(issuer: String) -> String {
        var base = issuer
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/.well-known/openid-configuration"
    }

    /// Checks a URL the gateway would fetch keys from: https, or http on a loopback host
    /// (127.0.0.1, ::1, localhost: a provider on the same machine, in development); no user
    /// information or fragment. Returns its host.
    /// - Throws: ``Problem`` naming what is wrong.
    @discardableResult
    static func check(_ url: String, role: String) throws(Problem) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), let host = components.host, !host.isEmpty
        else { throw Problem(description: "\(role) \(url) is not an absolute URL") }
        guard components.user == nil, components.password == nil, components.fragment == nil else {
            throw Problem(description: "\(role) must not carry user information or a fragment")
        }
        switch scheme {
        case "https": return host.lowercased()
        case "http" where isLoopback(host): return host.lowercased()
        default: throw Problem(description: "\(role) \(url) must be https (http only on 127.0.0.1, ::1 or localhost)")
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        ["127.0.0.1", "::1", "[::1]", "localhost"].contains(host.lowercased())
    }

    /// The key set's URL from a discovery document: its `issuer` must be `issuer` exactly
    /// and its `jwks_uri` on the issuer's host, https (or http when the issuer itself is a
    /// loopback http URL).
    /// - Throws: ``Problem``.
    static func keySetURL(fromDiscovery body: [UInt8], issuer: String) throws(Problem) -> String {
        guard case .object(let members)? = try? JSONParser.parse(body, limits: .strict(maxDepth: 8, maxValues: 4096)) else {
            throw Problem(description: "the discovery document is not a JSON object")
        }
        guard case .string(let stated)? = members["issuer"], stated == issuer else {
            throw Problem(description: "the discovery document's issuer is not \(issuer) exactly")
        }
        guard case .string(let keySetURL)? = members["jwks_uri"] else { throw Problem(description: "the discovery document has no jwks_uri") }
        let issuerHost = try check(issuer, role: "the issuer")
        let keysHost = try check(keySetURL, role: "jwks_uri")
        guard keysHost == issuerHost else { throw Problem(description: "jwks_uri is on \(keysHost), not on the issuer's host \(issuerHost)") }
        if keySetURL.lowercased().hasPrefix("http:"), !issuer.lowercased().hasPrefix("http:") {
            throw Problem(description: "jwks_uri must be https like the issuer")
        }
        return keySetURL
    }

    /// How long a fetched key set stays fresh: its `Cache-Control` max-age clamped to 60 s
    /// to 24 h; 10 minutes without one (or with `no-cache`/`no-store`, which would make every
    /// request a fetch: the floor applies).
    static func freshness(cacheControl: String?) -> Duration {
        guard let cacheControl else { return .seconds(600) }
        var seconds: Int?
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            if parts[0] == "no-cache" || parts[0] == "no-store" { seconds = 0 }
            if parts[0] == "max-age", parts.count == 2, seconds == nil, let value = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))) {
                seconds = value
            }
        }
        guard let seconds else { return .seconds(600) }
        return .seconds(min(max(seconds, 60), 86_400))
    }
}
