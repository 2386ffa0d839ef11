import GatewayModels
import GatewaySupport

/// An identity provider's key set (RFC 7517 §5) as read: the usable keys, and why each
/// other one was skipped (a malformed or unsupported key does not spoil the set).
/// Immutable, thread-safe.
public struct JSONWebKeySet: Sendable {
    public let keys: [JSONWebKey]
    /// One line per key skipped: its position, `kid` when it had one, and why.
    public let skipped: [String]

    /// The most keys read from one set (providers publish two or three during a rotation).
    public static let maxKeys = 32
    /// The most bytes of a set (a fetch stops there).
    public static let maxBytes = 256 * 1024
    static let limits = JSONParser.Limits.strict(maxDepth: 6, maxValues: 4096)

    /// Why a whole set is refused (the last good one is kept).
    public struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
    }

    public init(keys: [JSONWebKey], skipped: [String] = []) {
        self.keys = keys
        self.skipped = skipped
    }

    /// Reads a set's JSON: an object whose `keys` is an array.
    /// - Throws: ``Failure`` when it is not such JSON (members named twice included), is
    ///   over ``maxBytes``, lists more than ``maxKeys`` keys, or none of its keys is usable.
    public static func read(_ bytes: [UInt8]) throws(Failure) -> JSONWebKeySet {
        guard bytes.count <= maxBytes else { throw Failure(description: "the key set is over \(maxBytes) bytes") }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, limits: limits)
        } catch {
            throw Failure(description: "the key set is not valid JSON (\(error.description))")
        }
        guard case .object(let members) = value, case .array(let entries) = members["keys"] else {
            throw Failure(description: "the key set is not an object with a \"keys\" array")
        }
        guard entries.count <= maxKeys else { throw Failure(description: "the key set lists \(entries.count) keys (at most \(maxKeys))") }
        var keys: [JSONWebKey] = []
        var skipped: [String] = []
        for (position, entry) in entries.enumerated() {
            do throws(JSONWebKey.Skipped) {
                keys.append(try JSONWebKey(entry))
            } catch {
                var name = "key \(position + 1)"
                if case .object(let key) = entry, case .string(let id) = key["kid"] { name += " (kid \(id.prefix(64)))" }
                skipped.append("\(name): \(error.reason)")
            }
        }
        guard !keys.isEmpty else {
            throw Failure(description: "the key set has no usable key" + (skipped.isEmpty ? "" : ": " + skipped.joined(separator: "; ")))
        }
        return JSONWebKeySet(keys: keys, skipped: skipped)
    }

    /// The keys that may verify a token with `header`: those with its `kid`; with no `kid`,
    /// the set's only key.
    /// - Throws: ``TokenRejection`` `.unknownKey` (no key has the `kid`: a refetch may find
    ///   it), `.keyNotNamed` (no `kid`, several keys), `.keyMismatch` (the `kid`'s keys are of
    ///   another type or algorithm).
    func candidates(for header: TokenHeader, algorithm: SigningAlgorithm) throws(TokenRejection) -> [JSONWebKey] {
        let named: [JSONWebKey]
        if let keyID = header.keyID {
            named = keys.filter { $0.id == keyID }
            guard !named.isEmpty else { throw .unknownKey }
        } else {
            guard keys.count == 1 else { throw .keyNotNamed }
            named = keys
        }
        let fitting = named.filter { $0.verifies(algorithm) }
        guard !fitting.isEmpty else { throw .keyMismatch }
        return fitting
    }

    /// Whether a key with `keyID` is in the set (a remembered token whose key left the set
    /// is no longer accepted).
    public func contains(keyID: String?) -> Bool {
        guard let keyID else { return keys.count == 1 }
        return keys.contains { $0.id == keyID }
    }
}
