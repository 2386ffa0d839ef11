/// How `Idempotency-Key` records are named and written, in memory and in Redis. Pure:
/// bytes in, bytes out.
///
/// A key is scoped by the route and the credentials the request carries (the password, and
/// on v2/v2b the vendor identifier): two clients that pick the same key never meet, and a
/// phone that retries from a new address finds its key. The scope and the request's
/// fingerprint are SHA-256 digests: neither the key as sent nor any credential is stored.
public enum IdempotencyRecord {
    /// What the first request with a key became, as stored.
    public enum Stored: Sendable, Equatable {
        /// Still running: `token` names the request that claimed it.
        case running(fingerprint: String, token: String)
        case finished(fingerprint: String, response: StoredResponse)
    }

    /// A response as replayed: status, header fields and body.
    public struct StoredResponse: Sendable, Equatable {
        public var status: Int
        public var fields: [(name: String, value: String)]
        public var body: [UInt8]

        public init(status: Int, fields: [(name: String, value: String)], body: [UInt8]) {
            self.status = status
            self.fields = fields
            self.body = body
        }

        public static func == (a: StoredResponse, b: StoredResponse) -> Bool {
            a.status == b.status && a.body == b.body && a.fields.elementsEqual(b.fields, by: { $0.name == $1.name && $0.value == $1.value })
        }
    }

    /// The key's scope: hex SHA-256 of the route, the credentials and the key.
    public static func scope(route: String, password: String, vendorIdentifier: String?, key: String) -> String {
        ReplicaNamespace.digest([Array(route.utf8), Array(password.utf8), Array((vendorIdentifier ?? "").utf8), Array(key.utf8)])
    }

    /// The key's scope for a signed-in caller: hex SHA-256 of the route, the token's issuer
    /// and subject (two users of one vendor never share keys; the password plays no part),
    /// the vendor identifier and the key. Never equal to a ``scope(route:password:vendorIdentifier:key:)``.
    public static func scope(route: String, issuer: String, subject: String, vendorIdentifier: String?, key: String) -> String {
        ReplicaNamespace.digest([
            Array(route.utf8), Array("bearer".utf8), Array(issuer.utf8), Array(subject.utf8), Array((vendorIdentifier ?? "").utf8), Array(key.utf8),
        ])
    }

    /// The request's fingerprint: hex SHA-256 of its path, the vendor identifier it is sent
    /// with (a retry that corrects it is another request) and its body.
    public static func fingerprint(path: String, vendorIdentifier: String?, body: [UInt8]) -> String {
        ReplicaNamespace.digest([Array(path.utf8), Array((vendorIdentifier ?? "").utf8), body])
    }

    static let fingerprintLength = 64

    /// `R` + fingerprint + token.
    public static func running(fingerprint: String, token: String) -> [UInt8] {
        Array("R".utf8) + Array(fingerprint.utf8) + Array(token.utf8)
    }

    /// `D` + fingerprint + status (3 digits) + `\n`, one `name: value\n` per field, `\n`,
    /// then the body. Fields with CR or LF in them are left out (the gateway writes none).
    public static func finished(fingerprint: String, response: StoredResponse) -> [UInt8] {
        var bytes = Array("D".utf8) + Array(fingerprint.utf8) + Array(String(response.status).utf8) + [0x0A]
        for field in response.fields where !(field.name + field.value).utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) {
            bytes += Array(field.name.utf8) + Array(": ".utf8) + Array(field.value.utf8) + [0x0A]
        }
        return bytes + [0x0A] + response.body
    }

    /// Reads a record written by `running` or `finished`; nil for anything else.
    public static func parse(_ bytes: [UInt8]) -> Stored? {
        guard bytes.count >= 1 + fingerprintLength, let kind = bytes.first else { return nil }
        let fingerprint = String(decoding: bytes[1...fingerprintLength], as: UTF8.self)
        let rest = bytes[(1 + fingerprintLength)...]
        switch kind {
        case UInt8(ascii: "R"):
            return .running(fingerprint: fingerprint, token: String(decoding: rest, as: UTF8.self))
        case UInt8(ascii: "D"):
            var lines = rest.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false)
            guard lines.count == 2, lines[0].count == 3, let status = Int(String(decoding: lines[0], as: UTF8.self)), (100...599).contains(status)
            else { return nil }
            var fields: [(name: String, value: String)] = []
            var remaining = lines.removeLast()
            while true {
                guard let end = remaining.firstIndex(of: 0x0A) else { return nil }
                let line = remaining[remaining.startIndex..<end]
                remaining = remaining[(end + 1)...]
                if line.isEmpty { break }
                let text = String(decoding: line, as: UTF8.self)
                guard let colon = text.range(of: ": ") else { return nil }
                fields.append((String(text[..<colon.lowerBound]), String(text[colon.upperBound...])))
            }
            return .finished(fingerprint: fingerprint, response: StoredResponse(status: status, fields: fields, body: Array(remaining)))
        default:
            return nil
        }
    }
}
