/// A JWS signature algorithm (RFC 7518 §3, RFC 8037) the gateway verifies. Only asymmetric
/// ones: a key set is public, so an HMAC algorithm would let anyone who read it sign (the
/// "HS256 keyed with the RSA public key" confusion), and `none` is no signature at all.
public enum SigningAlgorithm: String, Sendable, Hashable, CaseIterable {
    case rs256 = "RS256"
    case rs384 = "RS384"
    case rs512 = "RS512"
    case ps256 = "PS256"
    case ps384 = "PS384"
    case ps512 = "PS512"
    case es256 = "ES256"
    case es384 = "ES384"
    case edDSA = "EdDSA"

    /// `--auth-algorithms`' default.
    public static let defaults: [SigningAlgorithm] = [.rs256, .es256, .edDSA]

    /// The `kty` of the keys that verify it.
    var keyType: String {
        switch self {
        case .rs256, .rs384, .rs512, .ps256, .ps384, .ps512: "RSA"
        case .es256, .es384: "EC"
        case .edDSA: "OKP"
        }
    }

    /// Why an operator's list of algorithms is refused at start.
    public struct ListError: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
    }

    /// Reads an operator's list (`--auth-algorithms`, comma-separated in its variable): each
    /// name exactly as RFC 7518 spells it, at least one.
    /// - Throws: ``ListError`` naming `none`, an HMAC algorithm (`HS256`…), or any name not
    ///   in ``allCases``.
    public static func list(_ names: [String]) throws(ListError) -> [SigningAlgorithm] {
        var algorithms: [SigningAlgorithm] = []
        for name in names.map({ $0.trimmingWhitespace }) where !name.isEmpty {
            if name.lowercased() == "none" {
                throw ListError(description: "\"none\" is not a signature: tokens must be signed")
            }
            if name.uppercased().hasPrefix("HS") {
                throw ListError(description: "\(name) is an HMAC algorithm, whose key would have to be the key set's public bytes: only RS, PS, ES and EdDSA algorithms")
            }
            guard let algorithm = SigningAlgorithm(rawValue: name) else {
                throw ListError(description: "unknown algorithm \"\(name)\" (known: \(allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            if !algorithms.contains(algorithm) { algorithms.append(algorithm) }
        }
        guard !algorithms.isEmpty else { throw ListError(description: "no algorithm named") }
        return algorithms
    }
}

extension String {
    var trimmingWhitespace: String {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return String(text)
    }
}
