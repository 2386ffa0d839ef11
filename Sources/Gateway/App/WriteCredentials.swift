import GatewayModels
import HTTPInterface
import GatewaySupport

/// The vendor credentials the gateway holds for signed-in callers (`--vendor-credentials-file`)
/// and the token claim that names the vendor (`--auth-vendor-claim`).
public struct ServerVendorCredentials: Sendable {
    public let store: VendorCredentialStore
    public let claim: String

    public init(store: VendorCredentialStore, claim: String) {
        self.store = store
        self.claim = claim
    }
}

/// Whose credentials one write is made with, decided on the loop before the body is read.
enum WriteCredentials: Sendable {
    /// The client's: the body's `password` (v1: the item's; v2/v2b: the vendor secret) and,
    /// on v2/v2b, the identifier from `Vendor-Identifier` or else `--origin-vendor-identifier`.
    case client(identifier: String?)
    /// The gateway's, for the verified token's vendor (v2/v2b with a credentials file): the
    /// body needs no `password`; one sent must be the vendor's secret.
    case server(vendor: String, VendorCredential)

    /// The `identifier` header the origin gets; nil on v1.
    var identifier: String? {
        switch self {
        case .client(let identifier): identifier
        case .server(_, let credential): credential.identifier
        }
    }

    /// The v2/v2b secret the origin gets: the gateway's, or else the password the client sent.
    func secret(clientPassword: String) -> String {
        switch self {
        case .client: clientPassword
        case .server(_, let credential): credential.secret
        }
    }

    var isServerHeld: Bool {
        if case .server = self { true } else { false }
    }

    /// What stops a write before its body is read: a field error, reported with the body's
    /// (every field error at once), or a refusal answered alone.
    enum Stop: Error, Sendable {
        case invalid(FieldError)
        case refused(GatewayError)
    }

    /// The credentials of a write `request`, or why it cannot be made.
    ///
    /// On v2/v2b with `server` set, a verified token's vendor claim must name a vendor of the
    /// file (else 403: never a fallback to `--origin-vendor-identifier`); a `Vendor-Identifier`
    /// sent must equal that vendor's (compared in constant time, else 403, malformed or not).
    /// Otherwise the header, when present, must be 1 to 200 visible ASCII characters on
    /// every generation, and v2/v2b need it or `fallbackIdentifier`.
    static func resolve(
        _ request: GatewayRequest, generation: OriginGeneration, server: ServerVendorCredentials?, fallbackIdentifier: String?
    ) throws(Stop) -> WriteCredentials {
        let header = request.headers["Vendor-Identifier"]
        if generation != .v1, let server {
            guard let identity = request.identity else {
                // Writes need a token whenever authentication is on; this is a guard only.
                throw .refused(.tokenRequired())
            }
            guard case .string(let vendor)? = identity.claims[server.claim], !vendor.isEmpty else {
                throw .refused(forbidden("The token carries no \(server.claim) claim (a string naming the vendor), so no vendor can write for it."))
            }
            guard let credential = server.store.credential(for: vendor) else {
                throw .refused(forbidden("The token's vendor is not one this gateway writes for."))
            }
            if let header, !ConstantTime.equals(header, credential.identifier) {
                throw .refused(forbidden("Vendor-Identifier is not the signed-in vendor's: leave it out, or send the token's vendor's."))
            }
            return .server(vendor: vendor, credential)
        }
        if let header {
            guard (1...200).contains(header.utf8.count), header.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw .invalid(FieldError(field: "Vendor-Identifier", message: "must be 1 to 200 visible ASCII characters."))
            }
        }
        guard generation != .v1 else { return .client(identifier: nil) }
        if let header { return .client(identifier: header) }
        guard let fallbackIdentifier else {
            throw .invalid(FieldError(
                field: "Vendor-Identifier",
                message: "is required by this origin (\(generation.rawValue)): send the Vendor-Identifier header, or start the gateway with --origin-vendor-identifier."))
        }
        return .client(identifier: fallbackIdentifier)
    }

    /// The 403 for a password the client sent with a write made with server-held credentials
    /// that is not the vendor's secret (compared in constant time); nil when it may go (none
    /// sent, the secret, or client-held credentials).
    func refusal(forPassword password: String) -> GatewayError? {
        guard case .server(_, let credential) = self, !password.isEmpty, !ConstantTime.equals(password, credential.secret) else { return nil }
        return Self.forbidden("password is not the signed-in vendor's secret: leave it out (the gateway holds it).")
    }

    static func forbidden(_ detail: String) -> GatewayError {
        GatewayError(status: 403, type: GatewayError.typePrefix + "vendor-forbidden", title: "Forbidden", detail: detail)
    }
}
