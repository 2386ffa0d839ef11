import Foundation

/// Where the origin is: scheme, host, port and an optional base path, parsed once from
/// `--origin`.
public struct OriginEndpoint: Sendable, Hashable, CustomStringConvertible {
    public enum Scheme: String, Sendable { case http, https }

    public let scheme: Scheme
    public let host: String
    public let port: Int
    /// A path prefix for every request, without a trailing `/` (`""` for none).
    public let basePath: String
    /// A numeric address to connect to instead of resolving `host`, which still names the
    /// server in `Host`, SNI and certificate checks. Image fetches set it to the address they
    /// resolved and checked, so the connection goes exactly there.
    public let connectAddress: String?

    /// Parses `http://host[:port][/base]` or `https://…`.
    ///
    /// - Throws: `OriginEndpointError` when the URL is not http or https, has no host, or has
    ///   a query, fragment or user information. The error never repeats a password.
    public init(url text: String) throws(OriginEndpointError) {
        let text = Self.withoutUserInformation(text)
        guard let components = URLComponents(string: text), let rawScheme = components.scheme?.lowercased(),
            let scheme = Scheme(rawValue: rawScheme)
        else { throw OriginEndpointError(text: text, reason: "must be an http or https URL") }
        guard let host = components.host, !host.isEmpty else { throw OriginEndpointError(text: text, reason: "has no host") }
        guard components.query == nil, components.fragment == nil, components.user == nil else {
            throw OriginEndpointError(text: text, reason: "must not have a query, fragment or user")
        }
        self.scheme = scheme
        self.host = host
        self.port = components.port ?? (scheme == .https ? 443 : 80)
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        self.basePath = path
        self.connectAddress = nil
    }

    /// `text` with any `user:password@` replaced by `***@`, so errors and logs never carry
    /// credentials.
    package static func withoutUserInformation(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return text }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return text }
        return String(text[..<schemeEnd.upperBound]) + "***" + String(rest[at...])
    }

    /// An endpoint from its parts (image fetches, which have checked them already).
    public init(scheme: Scheme, host: String, port: Int, basePath: String = "", connectAddress: String? = nil) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.basePath = basePath
        self.connectAddress = connectAddress
    }

    /// The `Host` header: the port only when it is not the scheme's default.
    public var hostHeader: String {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        let defaultPort = scheme == .https ? 443 : 80
        return port == defaultPort ? bracketed : "\(bracketed):\(port)"
    }

    public var description: String { "\(scheme.rawValue)://\(hostHeader)\(basePath)" }
}

/// An origin URL that cannot be used.
public struct OriginEndpointError: Error, Sendable, CustomStringConvertible {
    public let text: String
    public let reason: String
    public var description: String { "origin URL \(text) \(reason)" }
}
