import Foundation
import GatewayModels
import GatewaySupport

/// One v2/v2b vendor's credentials as the gateway holds them: the `identifier` header value
/// and the `secret` every write repeats. Never logged, never sent to a client.
public struct VendorCredential: Sendable, Hashable {
    public let identifier: String
    public let secret: String

    public init(identifier: String, secret: String) {
        self.identifier = identifier
        self.secret = secret
    }
}

/// `--vendor-credentials-file` read: a JSON object from a vendor claim's value to
/// `{"identifier": …, "secret": …}`. Pure.
///
/// Strict, because a typo here writes as the wrong vendor or as none: a member named twice,
/// a member other than `identifier` and `secret`, an empty object, more than 10,000 vendors
/// or a file over 1 MiB are refused whole. A vendor name is 1 to 255 characters; an
/// identifier 1 to 200 visible ASCII characters (what the `Vendor-Identifier` header may
/// carry); a secret 1 to 100 characters (what the contract's `password` may be).
public enum VendorCredentialsFile {
    /// Why the file cannot be used; the description names the vendor or the offset, never
    /// an identifier or a secret.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public let description: String
    }

    static let maxBytes = 1 << 20
    static let maxVendors = 10_000
    private static let limits = JSONParser.Limits.strict(maxDepth: 2, maxValues: 3 * maxVendors + 1)

    /// - Throws: ``Problem``.
    public static func parse(_ bytes: [UInt8]) throws(Problem) -> [String: VendorCredential] {
        guard bytes.count <= maxBytes else { throw Problem(description: "the file is larger than 1 MiB") }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, limits: limits)
        } catch {
            throw Problem(description: "not JSON as the gateway reads it (\(error.reason) at byte \(error.offset))")
        }
        guard case .object(let vendors) = value else { throw Problem(description: "the file must be a JSON object from vendor to credentials") }
        guard !vendors.isEmpty else { throw Problem(description: "the file names no vendor") }
        guard vendors.count <= maxVendors else { throw Problem(description: "the file names more than \(maxVendors) vendors") }
        var result: [String: VendorCredential] = [:]
        for (vendor, entry) in vendors {
            let shown = vendor.unicodeScalars.allSatisfy({ $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F }) ? vendor : "(a vendor name)"
            guard (1...255).contains(vendor.unicodeScalars.count) else { throw Problem(description: "a vendor name must be 1 to 255 characters") }
            guard case .object(let members) = entry else { throw Problem(description: "vendor \(shown): must be an object with identifier and secret") }
            if let other = members.keys.sorted().first(where: { $0 != "identifier" && $0 != "secret" }) {
                throw Problem(description: "vendor \(shown): unknown member \(other.prefix(40)) (only identifier and secret)")
            }
            guard case .string(let identifier)? = members["identifier"],
                (1...200).contains(identifier.utf8.count), identifier.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
            else { throw Problem(description: "vendor \(shown): identifier must be a string of 1 to 200 visible ASCII characters") }
            guard case .string(let secret)? = members["secret"], (1...100).contains(secret.unicodeScalars.count) else {
                throw Problem(description: "vendor \(shown): secret must be a string of 1 to 100 characters")
            }
            result[vendor] = VendorCredential(identifier: identifier, secret: secret)
        }
        return result
    }

    /// What the file's permissions say: refused when its group or other users may write it
    /// (whoever can write it can write as any vendor), a warning when other users may read it
    /// (secret volumes are often 0644 or 0444; the operator should know).
    public enum Permissions: Sendable, Hashable {
        case fine
        case readableByOthers
        case writableByOthers
    }

    /// Judges a POSIX mode (the file's, after symbolic links).
    public static func judge(mode: Int) -> Permissions {
        if mode & 0o022 != 0 { return .writableByOthers }
        if mode & 0o004 != 0 { return .readableByOthers }
        return .fine
    }
}
