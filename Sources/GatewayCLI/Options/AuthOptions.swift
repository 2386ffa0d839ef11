import ArgumentParser
import Authentication
import Foundation
import Gateway

/// Sign-in at the edge: bearer tokens verified against an identity provider's keys. On when
/// `--auth-issuer` is set; every other `--auth-*` option needs it.
struct AuthOptions: ConfigurationOptions {
    static let title = "Sign-in (bearer tokens)"

    @Option(help: "The identity provider's issuer: a token's iss must equal it exactly; its OpenID Connect discovery document (/.well-known/openid-configuration) names the key set unless --auth-jwks-url or --auth-jwks-file does. https (http only on 127.0.0.1, ::1 or localhost). Turns authentication on. (env: GATEWAY_AUTH_ISSUER)")
    var authIssuer: String?

    @Option(help: ArgumentHelp("An audience tokens must name (aud); repeatable, or comma-separated; required with --auth-issuer, so ID tokens and tokens for the provider's other APIs do not pass. (env: GATEWAY_AUTH_AUDIENCE)", valueName: "audience"))
    var authAudience: [String] = []

    @Option(help: "The key set's URL instead of discovery (https, or http on loopback). (env: GATEWAY_AUTH_JWKS_URL)")
    var authJwksUrl: String?

    @Option(help: "A key set file instead of discovery; read again at each refresh. (env: GATEWAY_AUTH_JWKS_FILE)")
    var authJwksFile: String?

    @Option(help: "PEM file of CAs trusted for the identity provider instead of the system's. (env: GATEWAY_AUTH_CA_FILE)")
    var authCaFile: String?

    @Option(help: "Comma-separated signature algorithms accepted: RS256, RS384, RS512, PS256, PS384, PS512, ES256, ES384, EdDSA; none and HMAC (HS256…) are refused. (env: GATEWAY_AUTH_ALGORITHMS)")
    var authAlgorithms: String = "RS256,ES256,EdDSA"

    @Option(help: "Seconds the clocks of the identity provider and the gateway may disagree (exp, nbf, iat), 0 to 300. (env: GATEWAY_AUTH_CLOCK_SKEW)")
    var authClockSkew: Int = 60

    @Option(help: "Where a token must be present: writes (creates, updates, deletes) or all (everything under /v1/products; images, health, readiness and metrics stay open). A presented token is always verified. (env: GATEWAY_AUTH_REQUIRED)")
    var authRequired: String = "writes"

    @Option(help: "A scope writes need (from the token's scope, space-separated, or scp); default none. (env: GATEWAY_AUTH_WRITE_SCOPE)")
    var authWriteScope: String?

    @Option(help: "JSON file from a vendor (the value of the token's --auth-vendor-claim) to {\"identifier\": …, \"secret\": …}: v2/v2b writes of signed-in callers are made with these, and their bodies need no password. Refused if its group or other users may write it; reloaded on SIGHUP and when it changes. Needs --auth-issuer. (env: GATEWAY_VENDOR_CREDENTIALS_FILE)")
    var vendorCredentialsFile: String?

    @Option(help: "The token claim whose string value names the caller's vendor in --vendor-credentials-file. (env: GATEWAY_AUTH_VENDOR_CLAIM)")
    var authVendorClaim: String = "vendor"

    @Flag(help: "Try sign-in with nothing else installed: beside the embedded demo origin, start a small identity provider on 127.0.0.1 (a key made at start) and write as the token's demo vendor; prints how to get a token. Not with --origin or any other option of this group. (env: GATEWAY_DEMO_AUTH=true)")
    var demoAuth = false

    /// `--auth-audience` values, each possibly a comma-separated list.
    var audiences: [String] {
        authAudience.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func validate() throws {
        if demoAuth {
            let others = [authIssuer, authJwksUrl, authJwksFile, authCaFile, authWriteScope, vendorCredentialsFile].contains { $0 != nil }
                || !authAudience.isEmpty || authAlgorithms != "RS256,ES256,EdDSA" || authClockSkew != 60 || authRequired != "writes"
                || authVendorClaim != "vendor"
            if others {
                throw ValidationError("--demo-auth brings its own identity provider and vendor credentials: leave out the --auth-* options and --vendor-credentials-file.")
            }
            return
        }
        guard let authIssuer else {
            let others = [authJwksUrl, authJwksFile, authCaFile, authWriteScope].contains { $0 != nil } || !authAudience.isEmpty
                || authAlgorithms != "RS256,ES256,EdDSA" || authClockSkew != 60 || authRequired != "writes" || authVendorClaim != "vendor"
            if others { throw ValidationError("The --auth-* options need --auth-issuer.") }
            if vendorCredentialsFile != nil {
                throw ValidationError("--vendor-credentials-file needs --auth-issuer: only a verified token names the vendor to write as.")
            }
            return
        }
        guard (1...255).contains(authVendorClaim.utf8.count) else { throw ValidationError("--auth-vendor-claim must be 1 to 255 bytes.") }
        do {
            try AuthConfiguration.checkURL(authIssuer, role: "--auth-issuer")
            if let authJwksUrl { try AuthConfiguration.checkURL(authJwksUrl, role: "--auth-jwks-url") }
        } catch {
            throw ValidationError("\(error).")
        }
        guard !audiences.isEmpty else {
            throw ValidationError("--auth-audience is required with --auth-issuer: the API's audience, so that ID tokens and tokens for other APIs are refused.")
        }
        guard authJwksUrl == nil || authJwksFile == nil else { throw ValidationError("--auth-jwks-url and --auth-jwks-file: set one.") }
        if let authJwksFile, !FileManager.default.isReadableFile(atPath: authJwksFile) {
            throw ValidationError("--auth-jwks-file \(authJwksFile) cannot be read.")
        }
        if let authCaFile, !FileManager.default.isReadableFile(atPath: authCaFile) {
            throw ValidationError("--auth-ca-file \(authCaFile) cannot be read.")
        }
        do {
            _ = try SigningAlgorithm.list(authAlgorithms.split(separator: ",").map(String.init))
        } catch {
            throw ValidationError("--auth-algorithms: \(error.description).")
        }
        guard (0...300).contains(authClockSkew) else { throw ValidationError("--auth-clock-skew must be 0 to 300 seconds.") }
        guard AuthConfiguration.Required(rawValue: authRequired) != nil else { throw ValidationError("--auth-required must be writes or all.") }
        if let authWriteScope {
            guard !authWriteScope.isEmpty, authWriteScope.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) else {
                throw ValidationError("--auth-write-scope must be one scope: visible ASCII characters without quotes or backslashes.")
            }
        }
    }

    func apply(to configuration: inout GatewayConfiguration) {
        guard let authIssuer else { return }
        var auth = AuthConfiguration(issuer: authIssuer, audiences: audiences)
        auth.keySetURL = authJwksUrl
        auth.keySetFile = authJwksFile
        auth.caFile = authCaFile
        auth.algorithms = (try? SigningAlgorithm.list(authAlgorithms.split(separator: ",").map(String.init))) ?? SigningAlgorithm.defaults
        auth.clockSkew = .seconds(authClockSkew)
        auth.required = AuthConfiguration.Required(rawValue: authRequired) ?? .writes
        auth.writeScope = authWriteScope
        auth.vendorCredentialsFile = vendorCredentialsFile
        auth.vendorClaim = authVendorClaim
        configuration.auth = auth
    }
}
